// `crossmap validate --to openehr_1.0.4 [--template FILE.opt]... FILES...`: checks output against the target
// standard's rules. Thin: parses flags, then hands over to src/openehr/check.
import type { Command } from "commander";
import { Option } from "commander";
import { AppError } from "../errors.js";
import type { OperationalTemplate } from "../openehr/am/model.js";
import { formatValidateSummary, validateFiles } from "../openehr/check/run.js";
import { builtinTemplates, OpenehrValidator, readOptFile } from "../openehr/check/validator.js";

interface Flags {
  to: string;
  template: string[];
  builtinTemplates: boolean;
  format: "text" | "json";
  maxReported: number;
  warnings: boolean;
}

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

export function registerValidate(program: Command): void {
  program
    .command("validate")
    .description(
      "Check openEHR canonical JSON (COMPOSITIONs, EHR_STATUS) against the RM 1.0.4 ITS-JSON schema, the RM rules and operational templates",
    )
    .argument("[files...]", "NDJSON or JSON files (an object or an array per file); none or - reads stdin")
    .addOption(
      new Option("--to <standard>", "the standard to check against")
        .choices(["openehr_1.0.4"])
        .makeOptionMandatory(),
    )
    .option("--template <file>", "an operational template (OPT 1.4 XML); repeatable", collect, [])
    .option(
      "--no-builtin-templates",
      "do not load the templates of the built-in crossmaps (crossmaps/openehr/templates)",
    )
    .addOption(
      new Option("--format <format>", "how violations are printed").choices(["text", "json"]).default("text"),
    )
    .option("--max-reported <n>", "print at most this many violations (all are counted)", toCount, 1000)
    .option("--no-warnings", "do not print warnings (they are still counted)")
    .action(async (files: string[], flags: Flags) => {
      // A template given with --template replaces a built-in one of the same id.
      const templates = flags.builtinTemplates
        ? builtinTemplates()
        : new Map<string, () => OperationalTemplate>();
      for (const file of flags.template) {
        try {
          const t = readOptFile(file);
          templates.set(t.templateId, () => t);
        } catch (e) {
          throw new AppError(400, "invalid_template", `cannot read template ${(e as Error).message}`);
        }
      }
      const summary = await validateFiles({
        files,
        validator: new OpenehrValidator(templates),
        format: flags.format,
        maxReported: flags.maxReported,
        warnings: flags.warnings,
        write: (line) => process.stdout.write(`${line}\n`),
        stdin: () => process.stdin,
      });
      process.stderr.write(`${formatValidateSummary(summary)}\n`);
      if (summary.errors > 0) process.exitCode = 1;
    });
}

function toCount(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw new AppError(400, "usage", `--max-reported must be a count, not ${v}`);
  return n;
}
