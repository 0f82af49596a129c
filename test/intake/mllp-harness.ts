// Test helpers for `crossmap listen`: start the real CLI, talk MLLP over raw sockets, read the output.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { type Socket, connect as tcpConnect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ConnectionOptions, connect as tlsConnect } from "node:tls";
import { fileURLToPath } from "node:url";
import { parseMessage } from "../../src/pipeline/hl7v2/message.js";
import { splitMessages } from "../../src/pipeline/hl7v2/split.js";
import { type Proc, startCli } from "../scale/nats-harness.js";

export const SAMPLES = fileURLToPath(new URL("../fixtures/hl7v2/samples/", import.meta.url));

/** The sample messages, each as one ER7 text with CR segment ends. */
export function samples(): { name: string; text: string }[] {
  return readdirSync(SAMPLES)
    .filter((f) => f.endsWith(".hl7"))
    .sort()
    .map((name) => ({
      name,
      text: `${readFileSync(join(SAMPLES, name), "utf8")
        .replace(/^\ufeff/, "")
        .split(/\r\n|\r|\n/)
        .filter((l) => l.trim() !== "")
        .join("\r")}\r`,
    }));
}

/** The message with MSH-10 set to `id`. */
export function withControlId(text: string, id: string): string {
  const end = text.indexOf("\r");
  const msh = text.slice(0, end).split("|");
  msh[9] = id;
  return msh.join("|") + text.slice(end);
}

/** The id of the Bundle made of a message (derived from its text, as the reader makes it). */
export function bundleId(text: string): string {
  const parsed = parseMessage(splitMessages(text).next().value as never);
  if (!("id" in parsed)) throw new Error(parsed.message);
  return parsed.id;
}

/**
 * An ADT^A08 from LAB to CROSSMAP with control id `id` about `patient`; `modes` appends MSH-13 to MSH-16
 * (e.g. "|||NE|AL" for enhanced mode with the application ACK only).
 */
export const adtA08 = (id: string, patient = "P1", modes = ""): string =>
  `MSH|^~\\&|LAB|HOSP|CROSSMAP|HOSP|20240101120000||ADT^A08^ADT_A01|${id}|P|2.5.1${modes}\r` +
  `EVN|A08|20240101120000\rPID|1||${patient}^^^HOSP^MR||DOE^JOHN||19700101|M\r`;

export const frame = (text: string | Buffer): Buffer =>
  Buffer.concat([
    Buffer.of(0x0b),
    typeof text === "string" ? Buffer.from(text) : text,
    Buffer.of(0x1c, 0x0d),
  ]);

/** An acknowledgment with its own time (MSH-7) and control id (MSH-10) blanked, to compare exactly. */
export const steady = (ack: string): string =>
  ack.replace(/^(MSH\|[^|]*\|[^|]*\|[^|]*\|[^|]*\|[^|]*\|)[^|]*(\|[^|]*\|[^|]*\|)[^|]*/, "$1<time>$2<id>");

export interface Listener {
  proc: Proc;
  port: number;
  health: string;
}

export async function startListener(args: string[]): Promise<Listener> {
  const proc = startCli([
    "listen",
    "--mllp",
    "0",
    "--host",
    "127.0.0.1",
    "--health-port",
    "127.0.0.1:0",
    ...args,
  ]);
  const m = await proc.waitFor(/MLLP(?: over TLS)? on 127\.0\.0\.1:(\d+);.*health on (http:\S+)/, 90_000);
  return { proc, port: Number(m[1]), health: m[2] as string };
}

/** A listener journaling and writing into a new temporary directory (`out`: its output), with `more` flags. */
export async function startListenerWithOutput(
  name: string,
  more: string[],
): Promise<{ listener: Listener; out: string }> {
  const dir = mkdtempSync(join(tmpdir(), `crossmap-${name}-`));
  const out = join(dir, "out");
  const listener = await startListener(["--journal", join(dir, "journal"), "--out-dir", out, ...more]);
  return { listener, out };
}

/** The listener's metrics as JSON (GET /healthz). */
export async function metricsOf(l: Listener): Promise<Record<string, unknown>> {
  return (await (await fetch(`${l.health}/healthz`)).json()) as Record<string, unknown>;
}

/** A raw MLLP connection: frames out, frames in, and when it was closed. */
export class RawClient {
  private buffer = Buffer.alloc(0);
  private readonly frames: Buffer[] = [];
  private waiter: (() => void) | undefined;
  readonly closed: Promise<void>;
  isClosed = false;

  private constructor(readonly socket: Socket) {
    socket.on("data", (d: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, d]);
      for (;;) {
        const end = this.buffer.indexOf(Buffer.of(0x1c, 0x0d));
        if (end < 0) break;
        this.frames.push(this.buffer.subarray(1, end));
        this.buffer = this.buffer.subarray(end + 2);
      }
      this.waiter?.();
    });
    socket.on("error", () => {});
    this.closed = new Promise((resolve) =>
      socket.on("close", () => {
        this.isClosed = true;
        this.waiter?.();
        resolve();
      }),
    );
  }

  static connect(port: number, tls?: ConnectionOptions): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = tls
        ? tlsConnect({ port, host: "127.0.0.1", ...tls }, () => resolve(new RawClient(socket)))
        : tcpConnect(port, "127.0.0.1", () => resolve(new RawClient(socket)));
      socket.once("error", reject);
    });
  }

  write(bytes: Buffer | string): void {
    this.socket.write(bytes);
  }

  /** The next answer (frame content, read as UTF-8), or undefined when the connection closes first. */
  async next(ms = 60_000): Promise<string | undefined> {
    return (await this.nextBytes(ms))?.toString("utf8");
  }

  /** The next answer's bytes (frame content), or undefined when the connection closes first. */
  async nextBytes(ms = 60_000): Promise<Buffer | undefined> {
    const end = Date.now() + ms;
    while (this.frames.length === 0 && !this.isClosed) {
      if (Date.now() > end) throw new Error("no answer in time");
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        setTimeout(resolve, 200);
      });
    }
    return this.frames.shift();
  }

  /** Sends one message and waits for its answer. */
  async send(text: string): Promise<string | undefined> {
    this.write(frame(text));
    return this.next();
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Every line of the files `<prefix>-*.ndjson` (and the open `.part`), in file order. */
export function linesOf(dir: string, prefix: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.startsWith(`${prefix}-`) && /\.ndjson(\.part)?$/.test(f))
    .sort()
    .flatMap((f) =>
      readFileSync(join(dir, f), "utf8")
        .split("\n")
        .filter((l) => l !== ""),
    );
}
