// `crossmap stream` (a live feed through a crossmap on NATS JetStream, until SIGTERM) and `crossmap publish`
// (put ER7 messages or NDJSON records on a feed). Thin: the work is in src/scale/.
import { extname } from "node:path";
import type { Command } from "commander";
import { Option } from "commander";
import { AppError } from "../errors.js";
import type { BundleType } from "../pipeline/hl7v2/bundle.js";
import { defaultsToEr7 } from "../pipeline/hl7v2/command.js";
import { loadPlan, resolvePlanSpec } from "../pipeline/load-plan.js";
import { createBatchMapper } from "../pipeline/stage.js";
import { runFeed } from "../scale/feed.js";
import { er7Converter, recordConverter } from "../scale/feed-convert.js";
import { checkFeedSubject } from "../scale/feed-streams.js";
import { runPublish } from "../scale/publish.js";
import { addFhirServerOptions, type FhirServerFlags, fhirServerWriter } from "./fhir-server.js";
import { collect, collectParam } from "./params.js";
import { standardOption } from "./standard-arg.js";
import { checkedHealthPort, wholeNumber } from "./worker.js";

const NATS_DEFAULT = process.env.NATS_URL ?? "nats://127.0.0.1:4222";

interface StreamFlags extends FhirServerFlags {
  nats: string;
  from?: string;
  to?: string;
  via?: string;
  crossmap?: string[];
  vocab?: string;
  transforms?: string;
  param?: Record<string, string>;
  entity?: string;
  bundle: BundleType | "batch";
  in: string;
  out?: string;
  deadLetter?: string;
  name?: string;
  ackWait: string;
  discover: string;
  healthPort?: string;
}

interface PublishFlags {
  nats: string;
  subject: string;
  format?: "hl7v2" | "ndjson";
  key?: string;
  quiet?: boolean;
}

export function registerStream(program: Command): void {
  const stream = program
    .command("stream")
    .description("Convert a live feed on NATS JetStream, in order per sender, until SIGTERM.")
    .option("--nats <url>", "NATS server URL(s), comma-separated", NATS_DEFAULT)
    .addOption(standardOption("--from <standard>", "source standard, e.g. hl7v2_2.5.1"))
    .addOption(standardOption("--to <standard>", "target standard, e.g. fhir_r4"))
    .option("--via <standard>", "chain two crossmaps: from -> via -> to")
    .option("--crossmap <file>", "custom crossmap document (twice with --via)", collect)
    .option("--vocab <dir>", "vocabulary index directory for vocabulary_lookup")
    .option("--transforms <module>", "module registering custom transforms")
    .option("--param <name=value>", "set a parameter the crossmap declares (repeatable)", collectParam)
    .option("--entity <name>", "NDJSON feeds: source entity of every record (default: resourceType)")
    .addOption(
      new Option(
        "--bundle <type>",
        "HL7 v2 feeds: the FHIR Bundle made of each message (with --fhir-server: transaction or batch)",
      )
        .choices(["collection", "transaction", "batch"])
        .default("collection"),
    )
    .requiredOption("--in <subject>", "input subject: messages arrive on <subject>.<partition>")
    .option(
      "--out <subject>",
      "output subject: results go to <subject>.<partition> (optional with --fhir-server)",
    )
    .option(
      "--dead-letter <subject>",
      "messages that cannot be converted go to <subject>.<partition> (default: <in>-dead)",
    )
    .option(
      "--name <name>",
      "consumer name prefix; processes with the same name share the work (default: from --in and --out)",
    )
    .option("--ack-wait <seconds>", "seconds before a message in hand is redelivered (new consumers)", "30")
    .option("--discover <seconds>", "how often to look for new partitions (senders)", "2")
    .option("--health-port <[host:]port>", "serve GET /healthz and GET /metrics on this port (0 picks one)")
    .action(async (flags: StreamFlags, cmd: Command) => {
      checkFeedSubject("--in", flags.in);
      if (flags.out === undefined && flags.fhirServer === undefined) {
        throw new AppError(400, "usage", "give --out, --fhir-server, or both: where the results go");
      }
      if (flags.out !== undefined) checkFeedSubject("--out", flags.out);
      const deadLetter = flags.deadLetter ?? `${flags.in}-dead`;
      checkFeedSubject("--dead-letter", deadLetter);
      const subjects = [flags.in, flags.out, deadLetter].filter((x) => x !== undefined);
      if (new Set(subjects).size < subjects.length) {
        throw new AppError(400, "usage", "--in, --out and --dead-letter must be different subjects");
      }
      // With --fhir-server a message's Bundle is a transaction unless --bundle says batch.
      const bundleGiven = cmd.getOptionValueSource("bundle") === "cli";
      const bundle = flags.fhirServer !== undefined && !bundleGiven ? "transaction" : flags.bundle;
      if (bundle === "batch" && flags.fhirServer === undefined) {
        throw new AppError(400, "usage", "--bundle batch goes with --fhir-server");
      }
      if (flags.fhirServer !== undefined && bundle === "collection") {
        throw new AppError(
          400,
          "usage",
          "--fhir-server sends transaction or batch Bundles, not --bundle collection",
        );
      }
      const server = await fhirServerWriter(flags);
      const spec = await resolvePlanSpec({
        from: flags.from,
        to: flags.to,
        via: flags.via,
        crossmaps: flags.crossmap ?? [],
        transforms: flags.transforms,
        vocab: flags.vocab,
        ...(flags.param ? { parameters: flags.param } : {}),
      });
      const plan = await loadPlan(spec);
      const er7 = defaultsToEr7(plan.source, []);
      if (!er7 && plan.gather.rules.size > 0) {
        // An HL7 v2 message gathers within itself; records of a feed arrive one message at a time, and a
        // parent may never come: holding them would mean writing nothing, or writing incomplete parents.
        throw new AppError(
          400,
          "usage",
          "the crossmap gathers records into others (key/into), which needs the whole input: a record feed maps each message on its own; map such data with `crossmap map` (with --nats for workers)",
        );
      }
      const convert = er7
        ? er7Converter(plan, bundle === "batch" ? "transaction" : bundle)
        : recordConverter(
            createBatchMapper(plan, { onError: "skip", perEntity: false, unread: false }),
            flags.entity,
          );
      process.exitCode = await runFeed({
        url: flags.nats,
        name: flags.name ?? `${flags.in}_to_${flags.out}`.replace(/[^A-Za-z0-9_-]/g, "_"),
        convert,
        in: flags.in,
        ...(flags.out !== undefined ? { out: flags.out } : {}),
        ...(server
          ? {
              deliver: (await import("../sinks/fhir-server/feed.js")).feedDelivery(
                server,
                er7 ? "bundle" : "records",
                bundle === "batch" ? "batch" : "transaction",
              ),
            }
          : {}),
        deadLetter,
        ackWait: wholeNumber("--ack-wait", flags.ackWait, 1, 86_400),
        discoverMs: wholeNumber("--discover", flags.discover, 1, 3600) * 1000,
        ...(flags.healthPort !== undefined ? { healthPort: checkedHealthPort(flags.healthPort) } : {}),
        stderr: process.stderr,
      });
    });
  addFhirServerOptions(stream);

  program
    .command("publish")
    .description(
      "Put ER7 messages or NDJSON records on a feed subject, one per message, partitioned by sender.",
    )
    .argument("[files...]", "input files; none or - reads stdin")
    .option("--nats <url>", "NATS server URL(s), comma-separated", NATS_DEFAULT)
    .requiredOption("--subject <subject>", "feed subject: messages go to <subject>.<partition>")
    .addOption(
      new Option(
        "--format <format>",
        "input format (default: hl7v2 for *.hl7 and *.er7, else ndjson)",
      ).choices(["hl7v2", "ndjson"]),
    )
    .option(
      "--key <key>",
      "partition by: MSH.<n> for HL7 v2 (default MSH.4, the sending facility); a field path for NDJSON",
    )
    .option("-q, --quiet", "no summary line on stderr")
    .action(async (files: string[], flags: PublishFlags) => {
      checkFeedSubject("--subject", flags.subject);
      const format =
        flags.format ??
        (files.length > 0 && files.every((f) => /^\.(hl7|er7)$/i.test(extname(f))) ? "hl7v2" : "ndjson");
      const outcome = await runPublish({
        url: flags.nats,
        subject: flags.subject,
        files,
        format,
        key: flags.key,
        stdin: process.stdin,
      });
      if (!flags.quiet) {
        const parts = Object.entries(outcome.partitions)
          .map(([p, n]) => `${p} ${n}`)
          .join(", ");
        process.stderr.write(
          `crossmap publish: ${outcome.messages} messages to ${flags.subject}.<partition> (${parts})` +
            (outcome.duplicates > 0 ? `; ${outcome.duplicates} were already in the stream` : "") +
            "\n",
        );
      }
    });
}
