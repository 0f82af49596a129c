// `crossmap export crossmap|source-to-concept-map|concept-map --project P`: a project's reviewed
// decisions as files other tools take, from the data directory (the server's exports/ endpoints give
// the same files).
import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { AppError, formatProblem } from "../errors.js";
import {
  exportConceptMap,
  exportCrossmap,
  exportSourceToConceptMap,
} from "../server/handlers/project-data.js";
import type { Stores } from "../store/env.js";
import { requireProject, withDataDir, withStores } from "./data-dir.js";

interface ExportOptions {
  project: string;
  dataDir: string;
  output?: string;
  vocab?: string;
  source?: string;
  sourceVocabulary?: string;
}

type Exporter = (stores: Stores, o: ExportOptions) => Promise<string>;

const EXPORTS: Record<string, { description: string; run: Exporter }> = {
  crossmap: {
    description: "the approved and overridden schema items as a crossmap (YAML)",
    run: async (stores, o) => {
      const result = exportCrossmap(stores, o.project, o.source);
      for (const omitted of result.omitted) {
        process.stderr.write(`crossmap export: not included: item ${omitted.id}: ${omitted.reason}\n`);
      }
      return result.yaml;
    },
  },
  "source-to-concept-map": {
    description: "the mapped concept items as OMOP CDM v5.4 SOURCE_TO_CONCEPT_MAP rows (CSV)",
    run: (stores, o) =>
      withVocabulary(o.vocab, async (vocabulary) => {
        try {
          return exportSourceToConceptMap(stores, o.project, {
            sourceVocabularyId: o.sourceVocabulary,
            vocabulary,
          }).csv;
        } catch (err) {
          if (err instanceof AppError && err.problems.length > 0) {
            // The items to fix, one per line, then the usage error.
            for (const p of err.problems) process.stderr.write(`crossmap export: ${formatProblem(p)}\n`);
            throw new AppError(
              400,
              "invalid_items",
              `${err.problems.length} item(s) cannot be written as SOURCE_TO_CONCEPT_MAP rows`,
            );
          }
          throw err;
        }
      }),
  },
  "concept-map": {
    description: "the concept decisions as a FHIR R4 ConceptMap (JSON)",
    run: (stores, o) =>
      withVocabulary(
        o.vocab,
        async (vocabulary) => `${JSON.stringify(exportConceptMap(stores, o.project, vocabulary), null, 2)}\n`,
      ),
  },
};

async function withVocabulary<R>(
  dir: string | undefined,
  use: (v: import("../vocab/lmdb-bridge.js").LmdbVocabularyBridge | undefined) => Promise<R>,
): Promise<R> {
  if (dir === undefined) return use(undefined);
  const bridge = (await import("../vocab/lmdb-bridge.js")).openVocabulary(dir);
  try {
    return await use(bridge);
  } finally {
    await bridge.close();
  }
}

export function registerExport(program: Command): void {
  const cmd = program
    .command("export")
    .description(
      "write a project's reviewed decisions as a crossmap, SOURCE_TO_CONCEPT_MAP or FHIR ConceptMap",
    );
  for (const [name, { description, run }] of Object.entries(EXPORTS)) {
    withDataDir(
      cmd
        .command(name)
        .description(description)
        .requiredOption("--project <id>", "the project")
        .option("-o, --output <file>", "write here instead of stdout")
        .option("--vocab <dir>", "vocabulary index: target codes and systems, source concept ids")
        .option("--source <name>", "crossmap: the source standard name (default: from the project name)")
        .option(
          "--source-vocabulary <id>",
          "source-to-concept-map: for items without a source_vocabulary_id",
        ),
    ).action(async (o: ExportOptions) => {
      const text = await withStores(o, async (stores) => {
        requireProject(stores, o.project, o.dataDir);
        return run(stores, o);
      });
      if (o.output && o.output !== "-") await writeFile(o.output, text);
      else process.stdout.write(text);
    });
  }
}
