// The FHIR server writer (`--fhir-server URL`): takes the pipeline's output (NDJSON resources, or one Bundle
// per HL7 v2 message), sends it as batch or transaction Bundles, and keeps what the server said about each
// record or message as issues and counts. It knows the FHIR REST protocol, never a crossmap's content.
import { AppError } from "../../errors.js";
import { formatHl7v2Issue, type Hl7v2Issue } from "../../pipeline/hl7v2/run.js";
import { formatIssueLine, issueJsonLine } from "../../pipeline/issues.js";
import { stringifyJson } from "../../pipeline/json.js";
import type { RunIssue } from "../../pipeline/types.js";
import type { BundleSink, OutputSink } from "../../pipeline/writers.js";
import { messageBundle, type Outgoing, resourceEntry } from "./bundles.js";
import { FhirClient } from "./client.js";
import { Dispatcher, type DispatcherOptions } from "./dispatcher.js";
import { IssueLog } from "./issue-log.js";
import { locatedLines, type MessageSend } from "./located-lines.js";
import { type MergeBounds, searches } from "./merge.js";
import { MergingDispatcher } from "./merging-dispatcher.js";
import { type Delivery, type Rejection, Sender } from "./sender.js";

export interface FhirServerOptions {
  /** The FHIR base URL (a trailing slash is dropped). */
  url: string;
  /** The whole Authorization header value, when the server needs one. */
  authorization?: string;
  /** Where it came from (the environment variable's name), for messages. */
  authorizationSource: string;
  /** Bundles in flight at once. */
  concurrency: number;
  /** Resources per batch Bundle (NDJSON output). */
  batchSize: number;
  /**
   * HL7 v2 messages per transaction at most, with `--bundle transaction` (default 10; 1: one transaction per
   * message): the messages ready to go when a request can start, sharing nothing, go as one (merging-dispatcher.ts).
   */
  transactionMessages?: number;
  /** Entries per merged transaction at most (default 50); a larger message goes alone. */
  transactionEntries?: number;
  timeoutMs: number;
  retries: number;
  backoffMs?: number;
  maxBackoffMs?: number;
  maxRetryAfterMs?: number;
  /** A terminal to draw a progress line on (the HL7 v2 path, which has none of its own). */
  progress?: NodeJS.WriteStream;
}

export interface FhirServerReport {
  url: string;
  bundles: number;
  resources_sent: number;
  accepted: number;
  rejected: number;
  /** Resources of a stopped run that were never sent. */
  not_sent: number;
  retries: number;
  elapsed_ms: number;
  resources_per_s: number;
}

/** Where an entry came from: a record (named by the resource it became) or an HL7 v2 message. */
type Origin =
  | { kind: "record"; entity: string; target: string }
  | { kind: "message"; file: string; message: number };

export class FhirServerWriter {
  readonly issues = new IssueLog();
  readonly url: string;
  private readonly sender: Sender;
  private readonly client: FhirClient;
  private dispatcher: Dispatcher<Origin> | MergingDispatcher<Origin>;
  private readonly started = performance.now();
  private readonly counts = { bundles: 0, sent: 0, accepted: 0, rejected: 0, notSent: 0, retries: 0 };
  private lastDraw = 0;
  private finished: FhirServerReport | undefined;
  private readonly retryListeners: ((why: string) => void)[] = [];

  constructor(private readonly options: FhirServerOptions) {
    this.url = options.url.replace(/\/+$/, "");
    const client = new FhirClient({
      base: this.url,
      ...(options.authorization !== undefined ? { authorization: options.authorization } : {}),
      authorizationSource: options.authorizationSource,
      timeoutMs: options.timeoutMs,
      retries: options.retries,
      backoffMs: options.backoffMs ?? 500,
      maxBackoffMs: options.maxBackoffMs ?? 30_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 120_000,
      onRetry: (why) => {
        this.counts.retries++;
        for (const listener of this.retryListeners) listener(why);
      },
    });
    this.client = client;
    this.sender = new Sender(client);
    this.dispatcher = this.dispatcherFor(undefined);
  }

  /**
   * Told before each wait to try a request again (429, 5xx, a timeout, a failed connection), with why the
   * last try failed: `crossmap listen` shows it in /healthz while the server does not accept.
   */
  onRetry(listener: (why: string) => void): void {
    this.retryListeners.push(listener);
  }

  /** The dispatcher of a run: merging messages' transactions within `merge`, or sending each as it is. */
  private dispatcherFor(merge: MergeBounds | undefined): Dispatcher<Origin> | MergingDispatcher<Origin> {
    const options: DispatcherOptions<Origin> = {
      concurrency: this.options.concurrency,
      deliver: (out) => {
        this.counts.bundles++;
        this.counts.sent += out.entries.length;
        return this.sender.deliver(out);
      },
      delivered: (out, d) => this.delivered(out, d),
    };
    return merge !== undefined
      ? new MergingDispatcher<Origin>({ ...options, merge })
      : new Dispatcher<Origin>(options);
  }

  /** The sink of the record pipeline: NDJSON resources in, batch Bundles of `PUT Type/id` out. */
  records(): OutputSink {
    let batch = this.emptyBatch();
    const inBatch = new Set<string>();
    const flush = async (): Promise<void> => {
      if (batch.entries.length === 0) return;
      const full = batch;
      batch = this.emptyBatch();
      inBatch.clear();
      await this.submit(full);
    };
    const decoder = new TextDecoder();
    const write = async (_entity: string, text: string | Uint8Array): Promise<void> => {
      const s = typeof text === "string" ? text : decoder.decode(text);
      let start = 0;
      while (start < s.length) {
        let end = s.indexOf("\n", start);
        if (end === -1) end = s.length;
        const line = s.slice(start, end).trim();
        start = end + 1;
        if (line === "") continue;
        const e = resourceEntry(line);
        if ("problem" in e) {
          throw new AppError(
            400,
            "usage",
            `--fhir-server sends FHIR resources, and the output is not one (${e.problem}); is --to a FHIR standard?`,
          );
        }
        const origin: Origin = { kind: "record", entity: e.type, target: e.url };
        if (e.idless) {
          this.issue(
            origin,
            "fhir_not_idempotent",
            "warning",
            `${e.request}: the resource has no id, so the server names it, and sending it again makes another one`,
          );
        }
        // One batch writes a resource once: the server may apply a batch's entries in any order.
        if (e.key !== undefined && inBatch.has(e.key)) await flush();
        if (e.key !== undefined) inBatch.add(e.key);
        batch.entries.push(e.entry);
        batch.requests.push(e.request);
        batch.origins.push(origin);
        if (e.key !== undefined) batch.keys.push(e.key);
        if (batch.entries.length >= this.options.batchSize) await flush();
      }
    };
    return {
      write,
      commit: async () => {
        await flush();
        await this.finish();
      },
      abort: () => this.stop(batch.entries.length),
    };
  }

  /** The sink of the HL7 v2 path: each message's transaction Bundle, sent as one (or as a batch). */
  messages(as: "transaction" | "batch"): BundleSink {
    const send = this.messageSender(as);
    return {
      send: (bundle, from) => {
        const origin: Origin = { kind: "message", file: from.file, message: from.message };
        const { outgoing, unresolved, fullUrls } = messageBundle(bundle, as, origin);
        return send(outgoing, unresolved, fullUrls, origin);
      },
      commit: () => this.finish(),
      abort: () => this.stop(0),
    };
  }

  /** The same fed with the HL7 v2 pipeline's located lines, as `crossmap map` hands them (located-lines.ts). */
  messageLines(as: "transaction" | "batch"): OutputSink {
    return locatedLines<Origin>(as, this.messageSender(as), {
      origin: (file, message) => ({ kind: "message", file, message }),
      commit: () => this.finish(),
      abort: () => this.stop(0),
    });
  }

  /**
   * Sends one message's transaction (or batch); with `transactionMessages` > 1, the messages ready to go
   * when a request can start (none waiting for an earlier one it shares a resource with) go as one
   * transaction (the dispatcher's `merge`).
   */
  private messageSender(as: "transaction" | "batch"): MessageSend<Origin> {
    const merge = as === "transaction" ? this.mergeBounds : undefined;
    // Its window holds messages, not merged transactions: one that merges is made for them.
    if (merge !== undefined) this.dispatcher = this.dispatcherFor(merge);
    return async (outgoing, unresolved, fullUrls, origin) => {
      if (outgoing.entries.length === 0) return;
      if (unresolved.length > 0) {
        this.counts.rejected += outgoing.entries.length;
        this.issue(
          origin,
          "fhir_not_sent",
          "error",
          `not sent as a batch: it refers to entries the server would name (${[...new Set(unresolved)].join(", ")}), which only a transaction resolves; use --bundle transaction`,
        );
        return;
      }
      // A message that finds resources by a search goes alone (merge.ts, `searches`).
      const d = this.dispatcher;
      if (d instanceof MergingDispatcher && !searches(outgoing)) await d.submit(outgoing, { fullUrls });
      else await this.submit(outgoing);
    };
  }

  /**
   * Sends one feed message's output now (no queue): resolves with the issues of what the server rejected
   * (empty when it accepted everything); throws when the server cannot be used (the message is redelivered).
   */
  async deliverNow(outgoing: Outgoing<Origin>): Promise<Delivery<Origin>> {
    this.counts.bundles++;
    this.counts.sent += outgoing.entries.length;
    const d = await this.sender.deliver(outgoing);
    this.count(d);
    return d;
  }

  /** How `--bundle transaction` output is merged (undefined: one transaction per message). */
  get mergeBounds(): MergeBounds | undefined {
    const most = this.options.transactionMessages ?? 10;
    return most > 1 ? { messages: most, entries: this.options.transactionEntries ?? 50 } : undefined;
  }

  /** Resources per batch Bundle. */
  get batchSize(): number {
    return this.options.batchSize;
  }

  /** For the record pipeline's progress line. */
  note(): string {
    const c = this.counts;
    return `server: ${c.accepted.toLocaleString("en-US")} accepted, ${c.rejected} rejected${c.retries > 0 ? `, ${c.retries} retries` : ""}`;
  }

  report(): FhirServerReport {
    if (this.finished) return this.finished;
    const c = this.counts;
    const elapsed = Math.round(performance.now() - this.started);
    return {
      url: this.url,
      bundles: c.bundles,
      resources_sent: c.sent,
      accepted: c.accepted,
      rejected: c.rejected,
      not_sent: c.notSent,
      retries: c.retries,
      elapsed_ms: elapsed,
      resources_per_s: elapsed > 0 ? Math.round((c.accepted * 1000) / elapsed) : c.accepted,
    };
  }

  private emptyBatch(): Outgoing<Origin> {
    return { type: "batch", entries: [], requests: [], origins: [], keys: [] };
  }

  private async submit(out: Outgoing<Origin>): Promise<void> {
    await this.dispatcher.submit(out);
  }

  private delivered(_out: Outgoing<Origin>, d: Delivery<Origin>): void {
    this.count(d);
    for (const r of d.rejected) this.rejected(r);
    this.draw(false);
  }

  private count(d: Delivery<Origin>): void {
    this.counts.bundles += d.resent ?? 0;
    this.counts.accepted += d.accepted;
    for (const r of d.rejected) this.counts.rejected += r.resources;
  }

  private rejected(r: Rejection<Origin>): void {
    this.issue(
      r.origin,
      r.code,
      "error",
      `${r.request} ${r.code === "fhir_gave_up" ? "not accepted" : "rejected"}: ${r.message}`,
    );
  }

  /** Records one issue against the record or message an entry came from. */
  issue(origin: Origin, code: string, severity: "error" | "warning", message: string): void {
    if (origin.kind === "record") {
      const i: RunIssue = {
        file: this.url,
        entity: origin.entity,
        target: origin.target,
        code: code as RunIssue["code"],
        severity,
        message,
      };
      this.issues.add(issueJsonLine(i), formatIssueLine(i), code, severity);
    } else {
      const i: Hl7v2Issue = { file: origin.file, message_index: origin.message, code, severity, message };
      this.issues.add(`${stringifyJson(i)}\n`, formatHl7v2Issue(i), code, severity);
    }
  }

  private async finish(): Promise<void> {
    try {
      await this.dispatcher.drain();
    } finally {
      // Nothing more goes out: the kept-alive connections would only hold the server's sockets.
      this.client.close();
    }
    this.draw(true);
    this.finished = this.report();
  }

  private async stop(unsent: number): Promise<void> {
    this.counts.notSent += unsent + this.dispatcher.discard();
    await this.dispatcher.drain().catch(() => {});
    this.client.close();
    this.draw(true);
    this.finished = this.report();
  }

  private draw(last: boolean): void {
    const stream = this.options.progress;
    if (stream === undefined) return;
    const now = performance.now();
    if (!last && now - this.lastDraw < 250) return;
    this.lastDraw = now;
    const c = this.counts;
    stream.write(
      `\r\x1b[K${this.url}: ${c.sent.toLocaleString("en-US")} resources sent in ${c.bundles} Bundles, ${this.note()}${last ? "\n" : ""}`,
    );
  }
}

export type { Origin as FhirOrigin };
