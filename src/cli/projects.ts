// `crossmap projects create|list`: manage projects directly in the data directory.
import type { Command } from "commander";
import { AppError } from "../errors.js";
import { printJson, withDataDir, withStores } from "./data-dir.js";

interface CreateOptions {
  dataDir: string;
  targetModel?: string;
  vocabulary: string[];
  description?: string;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function registerProjects(program: Command): void {
  const projects = program.command("projects").description("create and list review projects");
  withDataDir(
    projects
      .command("create <name>")
      .description("create a project and print it as JSON")
      .option("--target-model <model>", "target data model, e.g. omop_cdm_v5.4")
      .option("--vocabulary <id>", "vocabulary the project maps to (repeatable)", collect, [])
      .option("--description <text>", "free text"),
  ).action(async (name: string, opts: CreateOptions) => {
    if (name.trim() === "" || name.length > 200) {
      throw new AppError(400, "invalid_argument", "project name must be 1 to 200 characters");
    }
    const project = await withStores(opts, (stores) =>
      stores.write(() =>
        stores.projects.create({
          name,
          target_model: opts.targetModel ?? null,
          vocabularies: opts.vocabulary,
          description: opts.description ?? null,
        }),
      ),
    );
    printJson(project);
  });
  withDataDir(projects.command("list").description("print every project as JSON")).action(
    async (opts: { dataDir: string }) => {
      const list = await withStores(opts, async (stores) => stores.projects.list());
      printJson({ projects: list });
    },
  );
}
