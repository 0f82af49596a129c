// `crossmap list` and `crossmap transforms`: what is built in, as JSON a script can read.
import type { Command } from "commander";
import { listBuiltinCrossmaps } from "../crossmap/catalog.js";
import { builtinTransforms } from "../transforms/builtins.js";

export function registerList(program: Command): void {
  program
    .command("list")
    .description("List the built-in crossmaps (source, target, file, entities) as JSON")
    .action(() => {
      const crossmaps = listBuiltinCrossmaps().map(({ path: _path, ...rest }) => rest);
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
