// `--fhir-server URL` and its tuning flags, shared by `crossmap map` and `crossmap stream`: they make the
// FHIR server writer (src/sinks/fhir-server), and at the end of a map run fold what the server said into
// the run's summary, --errors file and exit code.
import { type Command, Option } from "commander";
import { AppError } from "../errors.js";
import type { RunSummary } from "../pipeline/summary.js";
import type { FhirServerReport, FhirServerWriter } from "../sinks/fhir-server/writer.js";

/** The environment variable holding the whole Authorization header value, unless --fhir-auth-env names another. */
export const DEFAULT_AUTH_ENV = "CROSSMAP_FHIR_AUTHORIZATION";

export interface FhirServerFlags {
  fhirServer?: string;
  fhirAuthEnv: string;
  fhirBatchSize: string;
  fhirConcurrency: string;
  fhirTransactionMessages: string;
  fhirTransactionEntries: string;
  fhirRetries: string;
  fhirTimeout: string;
}

export function addFhirServerOptions(command: Command): Command {
  return command
    .option(
      "--fhir-server <url>",
      "send the output to this FHIR server's base URL (transaction/batch Bundles; docs/fhir-server.md)",
    )
    .addOption(
      new Option(
        "--fhir-auth-env <name>",
        "with --fhir-server: environment variable holding the Authorization header value",
      ).default(DEFAULT_AUTH_ENV),
    )
    .option("--fhir-batch-size <n>", "with --fhir-server: resources per batch Bundle (NDJSON output)", "100")
    .option(
      "--fhir-transaction-messages <n>",
      "with --fhir-server and --bundle transaction: HL7 v2 messages merged into one transaction at most, from those ready to go that share no resource (1: one transaction per message)",
      "10",
    )
    .option(
      "--fhir-transaction-entries <n>",
      "with --fhir-server: entries per merged transaction at most (a larger message goes alone)",
      "50",
    )
    .option("--fhir-concurrency <n>", "with --fhir-server: Bundles in flight at once", "4")
    .option("--fhir-retries <n>", "with --fhir-server: tries again on 429, 5xx and timeouts", "8")
    .option("--fhir-timeout <seconds>", "with --fhir-server: seconds to wait for an answer", "60");
}

function whole(flag: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new AppError(400, "usage", `${flag} must be a whole number from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

/** The writer the flags ask for (undefined without --fhir-server); bad flags are usage errors. */
export async function fhirServerWriter(
  flags: FhirServerFlags,
  progress?: NodeJS.WriteStream,
): Promise<FhirServerWriter | undefined> {
  if (flags.fhirServer === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(flags.fhirServer);
  } catch {
    throw new AppError(400, "usage", `--fhir-server must be an http(s) URL, got "${flags.fhirServer}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new AppError(400, "usage", `--fhir-server must be an http(s) URL, got "${flags.fhirServer}"`);
  }
  if (url.search !== "" || url.hash !== "") {
    throw new AppError(
      400,
      "usage",
      `--fhir-server is a base URL, without ?query or #fragment: "${flags.fhirServer}"`,
    );
  }
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(flags.fhirAuthEnv)) {
    throw new AppError(
      400,
      "usage",
      `--fhir-auth-env must name an environment variable, got "${flags.fhirAuthEnv}"`,
    );
  }
  const authorization = process.env[flags.fhirAuthEnv];
  const { FhirServerWriter } = await import("../sinks/fhir-server/writer.js");
  return new FhirServerWriter({
    url: url.href,
    ...(authorization !== undefined && authorization !== "" ? { authorization } : {}),
    authorizationSource: flags.fhirAuthEnv,
    batchSize: whole("--fhir-batch-size", flags.fhirBatchSize, 1, 10_000),
    concurrency: whole("--fhir-concurrency", flags.fhirConcurrency, 1, 64),
    transactionMessages: whole("--fhir-transaction-messages", flags.fhirTransactionMessages, 1, 1000),
    transactionEntries: whole("--fhir-transaction-entries", flags.fhirTransactionEntries, 1, 10_000),
    retries: whole("--fhir-retries", flags.fhirRetries, 0, 100),
    timeoutMs: whole("--fhir-timeout", flags.fhirTimeout, 1, 3600) * 1000,
    ...(progress ? { progress } : {}),
  });
}

/** `crossmap map: FHIR server http://...: 22 Bundles, 380 resources sent: 380 accepted, 0 rejected; ...` */
export function formatServerLine(r: FhirServerReport): string {
  return (
    `crossmap map: FHIR server ${r.url}: ${r.bundles} Bundles, ${r.resources_sent} resources sent: ` +
    `${r.accepted} accepted, ${r.rejected} rejected` +
    (r.not_sent > 0 ? `, ${r.not_sent} not sent (the run stopped)` : "") +
    `; ${r.retries} retries; ${(r.elapsed_ms / 1000).toFixed(2)} s, ${r.resources_per_s} resources/s`
  );
}

/**
 * Folds the server's answers into the run: each resource the server rejected is one the destination
 * refused (`rows_refused`, out of `records_out`, as a database's refused row), not one more record with
 * errors (a record the mapping had already found in error would count twice); its issues are counted by
 * code, written to --errors after the run's own (or the first ones to stderr), the report goes under
 * `fhir_server`, and a summary line.
 */
export async function foldServerReport(
  writer: FhirServerWriter,
  summary: RunSummary & { fhir_server?: FhirServerReport },
  options: { errorsFile?: string; quiet?: boolean; stderr: NodeJS.WritableStream },
): Promise<void> {
  const log = writer.issues;
  const report = writer.report();
  summary.fhir_server = report;
  if (report.rejected > 0) {
    summary.records_out -= report.rejected;
    summary.rows_refused = (summary.rows_refused ?? 0) + report.rejected;
  }
  summary.warnings += log.warnings;
  for (const [code, n] of Object.entries(log.byCode)) {
    summary.issues_by_code[code] = (summary.issues_by_code[code] ?? 0) + n;
  }
  try {
    if (options.errorsFile !== undefined) await log.appendTo(options.errorsFile);
    else {
      for (const line of log.shown) options.stderr.write(`${line}\n`);
      if (log.count > log.shown.length) {
        options.stderr.write(
          `crossmap map: ${log.count - log.shown.length} more FHIR server issue(s) not shown; use --errors FILE\n`,
        );
      }
    }
  } finally {
    log.dispose();
  }
  if (!options.quiet) options.stderr.write(`${formatServerLine(report)}\n`);
}
