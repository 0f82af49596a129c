// `crossmap worker`: maps the batches of `crossmap map --nats` runs, until SIGTERM or SIGINT. Thin: the
// work is in src/scale/worker.ts.
import { hostname } from "node:os";
import { resolve } from "node:path";
import type { Command } from "commander";
import { AppError } from "../errors.js";
import { parseHealthAddress } from "../scale/health.js";
import { runWorker } from "../scale/worker.js";

interface WorkerFlags {
  nats: string;
  vocab?: string;
  transforms?: string;
  concurrency: string;
  name?: string;
  ackWait?: string;
  healthPort?: string;
  verbose?: boolean;
}

export function registerWorker(program: Command): void {
  program
    .command("worker")
    .description("Map batches of `crossmap map --nats` runs from NATS JetStream, until SIGTERM.")
    .option(
      "--nats <url>",
      "NATS server URL(s), comma-separated",
      process.env.NATS_URL ?? "nats://127.0.0.1:4222",
    )
    .option("--vocab <dir>", "vocabulary index directory (the same index the coordinator uses)")
    .option(
      "--transforms <module>",
      "module registering custom transforms (the same module the coordinator uses)",
    )
    .option("--concurrency <n>", "threads mapping batches: the main thread and N-1 worker threads", "1")
    .option("--name <name>", "name in results, logs and metrics (default: host:pid)")
    .option(
      "--ack-wait <seconds>",
      "seconds before an unacknowledged batch is redelivered (sets the shared consumer)",
    )
    .option("--health-port <[host:]port>", "serve GET /healthz and GET /metrics on this port (0 picks one)")
    .option("-v, --verbose", "log every batch as it is taken and stored")
    .action(async (flags: WorkerFlags) => {
      process.exitCode = await runWorker({
        url: flags.nats,
        name: flags.name ?? `${hostname()}:${process.pid}`,
        ...(flags.vocab ? { vocab: resolve(flags.vocab) } : {}),
        ...(flags.transforms ? { transforms: resolve(flags.transforms) } : {}),
        concurrency: wholeNumber("--concurrency", flags.concurrency, 1, 256),
        ...(flags.ackWait !== undefined
          ? { ackWait: wholeNumber("--ack-wait", flags.ackWait, 1, 86_400) }
          : {}),
        ...(flags.healthPort !== undefined ? { healthPort: checkedHealthPort(flags.healthPort) } : {}),
        ...(flags.verbose ? { verbose: true } : {}),
        stderr: process.stderr,
      });
    });
}

export function wholeNumber(flag: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new AppError(400, "usage", `${flag} must be a whole number from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

/** Checks --health-port before anything connects, so that a typo is a usage error straight away. */
export function checkedHealthPort(value: string): string {
  parseHealthAddress(value);
  return value;
}
