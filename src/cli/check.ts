// `crossmap check FILE...`: loads crossmaps and reports every problem with file:line:column, as a CI step would.
import type { Command } from "commander";
import { loadCrossmapFile } from "../crossmap/load.js";
import { AppError } from "../errors.js";
import { builtinTransforms } from "../transforms/builtins.js";
import { loadTransformModule } from "../transforms/custom.js";

export function registerCheck(program: Command): void {
  program
    .command("check")
    .description("Validate crossmap files: every problem is printed as file:line:column: key: message")
    .argument("<files...>", "crossmap YAML files")
    .option("--transforms <module>", "module exporting custom transforms")
    .action(async (files: string[], opts: { transforms?: string }) => {
      const transforms = builtinTransforms().extend();
      if (opts.transforms) await loadTransformModule(opts.transforms, transforms);
      let failed = 0;
      for (const file of files) {
        try {
          const cm = await loadCrossmapFile(file, { transforms });
          process.stdout.write(
            `${file}: ok (${cm.source} -> ${cm.target}, ${cm.fieldMappings().length} field mappings)\n`,
          );
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          failed++;
          process.stderr.write(`${err.describe()}\n`);
        }
      }
      if (failed > 0) process.exitCode = 2;
    });
}
