// `crossmap check FILE...`: loads crossmaps and reports every problem with file:line:column, as a CI step
// would: errors, and names the standard definitions lack as warnings (errors with --strict).
import type { Command } from "commander";
import { analyseCrossmap, readCrossmapText } from "../crossmap/load.js";
import { AppError, formatProblem, type Problem } from "../errors.js";
import { builtinTransforms } from "../transforms/builtins.js";
import { loadTransformModule } from "../transforms/custom.js";

export function registerCheck(program: Command): void {
  program
    .command("check")
    .description(
      "Validate crossmap files: every problem is printed as file:line:column: key: message; names the " +
        "standard definitions lack are warnings",
    )
    .argument("<files...>", "crossmap YAML files")
    .option("--transforms <module>", "module exporting custom transforms")
    .option("--strict", "treat warnings (names the standard definitions lack) as errors")
    .action(async (files: string[], opts: { transforms?: string; strict?: boolean }) => {
      const transforms = builtinTransforms().extend();
      if (opts.transforms) await loadTransformModule(opts.transforms, transforms);
      let failed = 0;
      for (const file of files) {
        let text: string;
        try {
          text = await readCrossmapText(file);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          failed++;
          process.stderr.write(`${err.describe()}\n`);
          continue;
        }
        const { crossmap, errors, warnings } = analyseCrossmap(text, { file, transforms, standards: true });
        const problems: Problem[] = opts.strict
          ? [...errors, ...warnings.map(({ severity: _s, ...p }) => p)].sort(byPlace)
          : errors;
        if (problems.length > 0 || crossmap === undefined) {
          failed++;
          const n = problems.length;
          const shown = opts.strict ? problems : [...problems, ...warnings].sort(byPlace);
          process.stderr.write(`crossmap ${file} is invalid (${n} problem${n === 1 ? "" : "s"})\n`);
          for (const p of shown) process.stderr.write(`  ${formatProblem(p)}\n`);
          continue;
        }
        for (const w of warnings) process.stderr.write(`${formatProblem(w)}\n`);
        const n = warnings.length;
        process.stdout.write(
          `${file}: ok (${crossmap.source} -> ${crossmap.target}, ${crossmap.fieldMappings().length} field mappings` +
            `${n > 0 ? `, ${n} warning${n === 1 ? "" : "s"}` : ""})\n`,
        );
      }
      if (failed > 0) process.exitCode = 2;
    });
}

/** Problems in the order of the file, so errors and warnings read top to bottom. */
function byPlace(a: Problem, b: Problem): number {
  return (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0);
}
