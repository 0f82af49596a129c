// `crossmap revalidate --project P --vocab NEW`: reopen the project's mapped concept items whose target
// the new vocabulary release no longer has as a valid standard concept (with a replacement suggested).
import type { Command } from "commander";
import { revalidateProject } from "../server/handlers/project-data.js";
import { openVocabulary } from "../vocab/lmdb-bridge.js";
import { printJson, requireProject, withDataDir, withStores } from "./data-dir.js";

export function registerRevalidate(program: Command): void {
  withDataDir(
    program
      .command("revalidate")
      .description("move mapped concept items whose target a vocabulary release invalidates back to review")
      .requiredOption("--project <id>", "the project")
      .requiredOption("--vocab <dir>", "the new release's index (crossmap vocab build)")
      .option("--dry-run", "report what would be reopened, change nothing"),
  ).action(async (o: { project: string; vocab: string; dataDir: string; dryRun?: boolean }) => {
    const vocabulary = openVocabulary(o.vocab);
    try {
      const summary = await withStores(o, async (stores) => {
        requireProject(stores, o.project, o.dataDir);
        return revalidateProject(stores, o.project, vocabulary, {
          dryRun: o.dryRun === true,
          actor: { keyId: null, reviewer: null },
        });
      });
      printJson(summary);
    } finally {
      await vocabulary.close();
    }
  });
}
