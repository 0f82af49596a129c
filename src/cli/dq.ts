// `crossmap dq URL`: the OHDSI Data Quality Dashboard checks on a CDM database, DQD's summary on stdout, its
// JSON with --json; exit 1 when a check fails or errs so that a pipeline can gate on it. Thin: src/dq works.
import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { dqdJson } from "../dq/json.js";
import { runDataQuality, selectsAnyCheck } from "../dq/run.js";
import { formatReport, isFailure } from "../dq/summary.js";
import { AppError } from "../errors.js";
import { openDatabase } from "../sinks/db/client.js";

interface DqFlags {
  json?: string;
  checks?: string[];
  levels?: string[];
  severities?: string[];
  vocabSchema?: string;
  quiet?: boolean;
}

const list = (v: string) =>
  v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

const LEVELS = ["TABLE", "FIELD", "CONCEPT"] as const;
const SEVERITIES = ["fatal", "convention", "characterization"];

export function registerDq(program: Command): void {
  program
    .command("dq")
    .description(
      "Run the OHDSI Data Quality Dashboard checks (CDM v5.4) on a CDM database and print DQD's summary; " +
        "exit 1 when a check fails.",
    )
    .argument(
      "<database>",
      "postgresql://user@host:port/db, FILE.duckdb, duckdb:PATH or pglite:DIR (?schema=NAME)",
    )
    .option("--json <file>", "also write the results as DQD's JSON (its viewer reads it)")
    .option("--checks <names>", "only these checks, comma-separated (e.g. isPrimaryKey,isForeignKey)", list)
    .option("--levels <levels>", "only these check levels: TABLE, FIELD, CONCEPT (comma-separated)", list)
    .option("--severities <names>", "only these severities: fatal, convention, characterization", list)
    .option("--vocab-schema <name>", "schema of the vocabulary tables (default: the CDM schema)")
    .option("-q, --quiet", "no progress line")
    .action(async (url: string, flags: DqFlags) => {
      const levels = flags.levels?.map((l) => l.toUpperCase());
      const badLevel = levels?.find((l) => !(LEVELS as readonly string[]).includes(l));
      if (badLevel)
        throw new AppError(400, "usage", `--levels: unknown level ${badLevel} (TABLE, FIELD, CONCEPT)`);
      const badSeverity = flags.severities?.find((s) => !SEVERITIES.includes(s));
      if (badSeverity) {
        throw new AppError(
          400,
          "usage",
          `--severities: unknown severity ${badSeverity} (${SEVERITIES.join(", ")})`,
        );
      }
      const selection = {
        ...(levels ? { levels: levels as (typeof LEVELS)[number][] } : {}),
        ...(flags.severities ? { severities: flags.severities } : {}),
        ...(flags.checks ? { names: flags.checks } : {}),
      };
      if (!selectsAnyCheck(selection)) {
        throw new AppError(400, "usage", "no checks match --checks, --levels and --severities");
      }
      // Checking reads a database; one that is not there is refused, not made (only `db init` makes one).
      const client = await openDatabase(url, { create: false });
      const tty = !flags.quiet && process.stderr.isTTY;
      try {
        const run = await runDataQuality(client, {
          ...selection,
          ...(flags.vocabSchema ? { vocabSchema: flags.vocabSchema } : {}),
          ...(tty
            ? {
                onProgress: (done: number, total: number) => {
                  process.stderr.write(`\rcrossmap dq: ${done}/${total} checks`);
                  if (done === total) process.stderr.write("\n");
                },
              }
            : {}),
        });
        process.stdout.write(`${formatReport(run, client.display).join("\n")}\n`);
        if (flags.json) await writeFile(flags.json, `${dqdJson(run)}\n`);
        const bad = run.CheckResults.some(isFailure);
        if (bad) process.exitCode = 1;
      } finally {
        await client.close();
      }
    });
}
