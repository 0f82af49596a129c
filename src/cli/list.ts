// `crossmap list` and `crossmap transforms`: what is built in, as JSON a script can read.
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { listBuiltinCrossmaps, parseYaml } from "../crossmap/catalog.js";
import { compiledEntryAt } from "../crossmap/compiled.js";
import { builtinTransforms } from "../transforms/builtins.js";

/** A crossmap's declared `parameters` (name -> default, description), for `--param`; none: undefined. */
function parametersOf(path: string): Record<string, unknown> | undefined {
  const doc = (compiledEntryAt(path)?.document ?? parseYaml(readFileSync(path, "utf8"))) as {
    parameters?: Record<string, unknown>;
  } | null;
  const p = doc?.parameters;
  return p && Object.keys(p).length > 0 ? p : undefined;
}

export function registerList(program: Command): void {
  program
    .command("list")
    .description(
      "List the built-in crossmaps (source, target, file, entities, and the parameters `map --param` sets) as JSON",
    )
    .action(() => {
      const crossmaps = listBuiltinCrossmaps().map(({ path, ...rest }) => {
        const parameters = parametersOf(path);
        return parameters ? { ...rest, parameters } : rest;
      });
      process.stdout.write(`${JSON.stringify({ crossmaps, total: crossmaps.length }, null, 2)}\n`);
    });
  program
    .command("transforms")
    .description("List the built-in transforms with a one-line description each, as JSON")
    .action(() => {
      const registry = builtinTransforms();
      const transforms = registry
        .names()
        .map((name) => ({ name, description: registry.get(name)?.description ?? "" }));
      process.stdout.write(`${JSON.stringify({ transforms }, null, 2)}\n`);
    });
}
