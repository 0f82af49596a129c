// `crossmap listen --mllp PORT`: receive HL7 v2 over MLLP, acknowledge what is durably kept, convert it in
// order per patient. Thin: the work is in src/intake/ (docs/mllp.md).
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import type { Command } from "commander";
import { Option } from "commander";
import { AppError } from "../errors.js";
import type { BundleType } from "../pipeline/hl7v2/bundle.js";
import { MAX_MAX_RECORD_BYTES, parseByteSize } from "../pipeline/limits.js";
import { resolvePlanSpec } from "../pipeline/load-plan.js";
import { checkFeedSubject } from "../scale/feed-streams.js";
import { parseOffsetSetting } from "../transforms/dates.js";
import { addFhirServerOptions, type FhirServerFlags, fhirServerWriter } from "./fhir-server.js";
import { collect, collectParam } from "./params.js";
import { standardOption } from "./standard-arg.js";
import { checkedHealthPort, wholeNumber } from "./worker.js";

interface ListenFlags extends FhirServerFlags {
  mllp: string;
  host: string;
  journal: string;
  outDir?: string;
  outSubject?: string;
  nats?: string;
  stream: string;
  deadLetter?: string;
  tlsCert?: string;
  tlsKey?: string;
  tlsCa?: string;
  from?: string;
  to?: string;
  via?: string;
  crossmap?: string[];
  vocab?: string;
  transforms?: string;
  param?: Record<string, string>;
  bundle: BundleType | "batch";
  assumeTimezone?: string;
  strictSegments?: boolean;
  order: "patient" | "sender";
  dedupWindow: string;
  maxPending: string;
  maxConnections: string;
  maxMessageBytes: string;
  frameTimeout: string;
  idleTimeout: string;
  workers?: string;
  durability: "flush" | "commit";
  rollSize: string;
  rollEvery: string;
  healthPort?: string;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `15m`, `24h`, `7d`, `500ms` or `0` -> milliseconds. */
export function parseDuration(flag: string, text: string): number {
  const m = /^(\d+)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m || (m[2] === undefined && m[1] !== "0")) {
    throw new AppError(400, "usage", `${flag} must be a duration such as 90s, 15m, 24h or 7d, got "${text}"`);
  }
  return Number(m[1]) * (UNITS[m[2] ?? "ms"] as number);
}

function byteSize(flag: string, text: string, min: number): number {
  const n = parseByteSize(text);
  if (n === undefined || n < min || n > MAX_MAX_RECORD_BYTES) {
    throw new AppError(
      400,
      "usage",
      `${flag} must be a size from ${min} bytes to 512m, such as 4m, got "${text}"`,
    );
  }
  return n;
}

function readTlsFile(flag: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new AppError(
      400,
      "usage",
      `${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

export function registerListen(program: Command): void {
  const listen = program
    .command("listen")
    .description(
      "Receive HL7 v2 over MLLP: acknowledge what is durably kept, convert it in order per patient.",
    )
    .requiredOption("--mllp <port>", "MLLP port to listen on (0 picks a free one)")
    .option("--host <host>", "address to listen on", "0.0.0.0")
    .requiredOption(
      "--journal <dir>",
      "journal directory (LMDB): messages are kept here before they are acknowledged",
    )
    .option("--out-dir <dir>", "write converted Bundles as rolling NDJSON files (bundles-000001.ndjson, ...)")
    .option("--out-subject <subject>", "with --nats: publish converted Bundles to this JetStream subject")
    .option("--nats <url>", "keep the journal in a NATS JetStream stream (--journal then holds the progress)")
    .option(
      "--stream <name>",
      "with --nats: the journal's stream (subject crossmap.mllp.<name>)",
      "CROSSMAP_MLLP",
    )
    .option(
      "--dead-letter <dir>",
      "dead letters and issue lines (default: --out-dir, else <journal>/dead-letter)",
    )
    .option("--tls-cert <file>", "serve MLLP over TLS with this certificate (PEM)")
    .option("--tls-key <file>", "the TLS certificate's private key (PEM)")
    .option("--tls-ca <file>", "require client certificates signed by this CA (PEM)")
    .addOption(standardOption("--from <standard>", "source standard (default hl7v2_2.5.1)"))
    .addOption(standardOption("--to <standard>", "target standard (default fhir_r4)"))
    .option("--via <standard>", "chain two crossmaps: from -> via -> to")
    .option("--crossmap <file>", "custom crossmap document (twice with --via)", collect)
    .option("--vocab <dir>", "vocabulary index directory for vocabulary_lookup")
    .option("--transforms <module>", "module registering custom transforms")
    .option("--param <name=value>", "set a parameter the crossmap declares (repeatable)", collectParam)
    .addOption(
      new Option(
        "--bundle <type>",
        "the FHIR Bundle made of each message (default collection; transaction with --fhir-server, or batch)",
      ).choices(["collection", "transaction", "message", "batch"]),
    )
    .option("--assume-timezone <offset>", "offset of times sent without one (Z, UTC, +02:00)")
    .option("--strict-segments", "a segment the crossmap does not map is an error")
    .addOption(
      new Option("--order <key>", "convert in arrival order per patient (PID-3, MRG-1) or per sender")
        .choices(["patient", "sender"])
        .default("patient"),
    )
    .option(
      "--dedup-window <duration>",
      "how long a resend (same MSH-3, MSH-4, MSH-10) is recognised; 0: never",
      "24h",
    )
    .option(
      "--max-pending <n>",
      "messages kept and not yet converted past which acknowledgments wait",
      "1000",
    )
    .option("--max-connections <n>", "connections at once; more are refused", "100")
    .option("--max-message-bytes <size>", "largest message; a larger one is refused with AR", "16m")
    .option("--frame-timeout <duration>", "a frame must end within this time", "30s")
    .option("--idle-timeout <duration>", "close a connection silent for this long; 0: never", "10m")
    .option("--workers <n>", "conversion threads (0: convert on the main thread; default: one per CPU)")
    .addOption(
      new Option("--durability <when>", "acknowledge after the fsync (flush) or after the commit (commit)")
        .choices(["flush", "commit"])
        .default("flush"),
    )
    .option("--roll-size <size>", "close an output file at this size", "64m")
    .option("--roll-every <duration>", "close an output file this long after its first line", "1h")
    .option("--health-port <[host:]port>", "serve GET /healthz and GET /metrics on this port (0 picks one)")
    .action(async (flags: ListenFlags) => {
      process.exitCode = await listenCommand(flags);
    });
  addFhirServerOptions(listen);
}

async function listenCommand(flags: ListenFlags): Promise<number> {
  const port = wholeNumber("--mllp", flags.mllp, 0, 65535);
  const outputs = [flags.outDir, flags.outSubject, flags.fhirServer].filter((x) => x !== undefined);
  if (outputs.length !== 1) {
    throw new AppError(
      400,
      "usage",
      "give one of --out-dir, --out-subject or --fhir-server: where the converted Bundles go",
    );
  }
  // With --fhir-server a message's Bundle is a transaction unless --bundle says batch (as `stream` does).
  const bundle = flags.bundle ?? (flags.fhirServer !== undefined ? "transaction" : "collection");
  if (flags.fhirServer !== undefined && bundle !== "transaction" && bundle !== "batch") {
    throw new AppError(
      400,
      "usage",
      `--fhir-server sends transaction or batch Bundles, not --bundle ${bundle}`,
    );
  }
  if (bundle === "batch" && flags.fhirServer === undefined) {
    throw new AppError(400, "usage", "--bundle batch goes with --fhir-server");
  }
  if (flags.outSubject !== undefined && flags.nats === undefined) {
    throw new AppError(400, "usage", "--out-subject needs --nats");
  }
  if (flags.outSubject !== undefined) checkFeedSubject("--out-subject", flags.outSubject);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(flags.stream)) {
    throw new AppError(400, "usage", `--stream must be letters, digits, _ or -, got "${flags.stream}"`);
  }
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) {
    throw new AppError(400, "usage", "--tls-cert and --tls-key go together");
  }
  if (flags.tlsCa !== undefined && flags.tlsCert === undefined) {
    throw new AppError(400, "usage", "--tls-ca (client certificates) needs --tls-cert and --tls-key");
  }
  let assumeTimezone: string | undefined;
  if (flags.assumeTimezone !== undefined) {
    assumeTimezone = parseOffsetSetting(flags.assumeTimezone);
    if (assumeTimezone === undefined) {
      throw new AppError(
        400,
        "usage",
        `--assume-timezone must be Z, UTC or an offset such as +02:00, got "${flags.assumeTimezone}"`,
      );
    }
  }
  const windowMs = parseDuration("--dedup-window", flags.dedupWindow);
  const limits = {
    maxBytes: byteSize("--max-message-bytes", flags.maxMessageBytes, 1024),
    frameTimeoutMs: Math.max(1, parseDuration("--frame-timeout", flags.frameTimeout)),
    idleTimeoutMs: parseDuration("--idle-timeout", flags.idleTimeout),
    orderBy: flags.order,
  };
  const tls =
    flags.tlsCert !== undefined && flags.tlsKey !== undefined
      ? {
          cert: readTlsFile("--tls-cert", flags.tlsCert),
          key: readTlsFile("--tls-key", flags.tlsKey),
          ...(flags.tlsCa !== undefined ? { ca: readTlsFile("--tls-ca", flags.tlsCa) } : {}),
        }
      : undefined;
  const plan = await resolvePlanSpec({
    from: flags.crossmap ? flags.from : (flags.from ?? "hl7v2_2.5.1"),
    to: flags.crossmap ? flags.to : (flags.to ?? "fhir_r4"),
    via: flags.via,
    crossmaps: flags.crossmap ?? [],
    transforms: flags.transforms,
    vocab: flags.vocab,
    ...(flags.param ? { parameters: flags.param } : {}),
  });
  const outDir = flags.outDir !== undefined ? resolve(flags.outDir) : undefined;
  const journalDir = resolve(flags.journal);
  const durability = flags.durability;
  const { runListener, FileSink } = await import("../intake/run.js");
  const { LmdbJournal } = await import("../intake/lmdb-journal.js");
  const nats = flags.nats;
  const { lockJournal } = await import("../intake/journal-lock.js");
  const journal = async () => {
    const release = lockJournal(journalDir);
    try {
      const j = await openJournal();
      const close = j.close.bind(j);
      j.close = () => close().finally(release);
      return j;
    } catch (err) {
      release();
      throw err;
    }
  };
  const openJournal = async () => {
    if (nats === undefined) return new LmdbJournal(journalDir, { windowMs, durability });
    const { JetStreamJournal } = await import("../intake/jetstream-journal.js");
    return JetStreamJournal.open({
      url: nats,
      stream: flags.stream,
      subject: `crossmap.mllp.${flags.stream}`,
      windowMs,
      maxAgeMs: 7 * 86_400_000,
      progressDir: journalDir,
      durability,
    });
  };
  const subject = flags.outSubject;
  const { NatsSink } = await import("../intake/nats-sink.js");
  const server = await fhirServerWriter(flags);
  const { FhirServerSink } = await import("../intake/fhir-server-sink.js");
  const concurrency = Number(flags.fhirConcurrency);
  return runListener({
    host: flags.host,
    port,
    ...(tls ? { tls } : {}),
    maxConnections: wholeNumber("--max-connections", flags.maxConnections, 1, 100_000),
    limits,
    journal,
    sink: (roll, j) =>
      server !== undefined
        ? new FhirServerSink({
            writer: server,
            as: bundle === "batch" ? "batch" : "transaction",
            concurrency,
          })
        : outDir !== undefined
          ? new FileSink(outDir, roll)
          : new NatsSink({
              url: nats as string,
              subject: subject as string,
              journalId: j.identity,
              windowMs,
            }),
    reportsDir: flags.deadLetter ? resolve(flags.deadLetter) : (outDir ?? resolve(journalDir, "dead-letter")),
    roll: {
      rollBytes: byteSize("--roll-size", flags.rollSize, 1024),
      rollMs: Math.max(1000, parseDuration("--roll-every", flags.rollEvery)),
    },
    durability,
    convert: {
      plan,
      // A batch is made as a transaction, then sent as a batch (src/sinks/fhir-server/bundles.ts).
      bundle: bundle === "batch" ? "transaction" : bundle,
      ...(assumeTimezone !== undefined ? { assumeTimezone } : {}),
      strictSegments: flags.strictSegments === true,
    },
    // One conversion thread per core: the main thread (reading, keeping, answering) needs ~0.25 ms of CPU a
    // message against ~1.5 ms for the conversion, so a core of its own (CPU count - 1, the earlier default)
    // left most of it idle on a 2-core machine: 8 connections, a patient each, 8,000 messages, the earlier
    // build with --workers 1 converted 863 messages/s, with --workers 2 1,210 (separate runs; docs/mllp.md).
    // The conversion threads run at nice 5, so the main thread does not queue behind them (convert-worker.ts).
    workers:
      flags.workers === undefined
        ? Math.max(1, availableParallelism())
        : wholeNumber("--workers", flags.workers, 0, 64),
    maxPending: wholeNumber("--max-pending", flags.maxPending, 1, 1_000_000),
    pruneEveryMs: 60_000,
    ...(flags.healthPort !== undefined ? { healthPort: checkedHealthPort(flags.healthPort) } : {}),
    stderr: process.stderr,
  });
}
