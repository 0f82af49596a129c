// Where converted Bundles go: a sink takes them in conversion order and, at each commit, makes what it
// took durable (or accepted by its destination) and returns a state to store with the journal's marks.
// After a crash the sink is opened with the last committed state and must drop what it holds beyond it:
// those messages are converted again. That is what makes each kept message land exactly once.
import type { Hl7v2Issue } from "../pipeline/hl7v2/run.js";

/** Which kept message something is about. */
export interface Source {
  /** The journal id of the message (increasing in the order messages were kept). */
  id: number;
  /** `MSH-3|MSH-4` and MSH-10 of the message. */
  sender: string;
  controlId: string;
  /** When the message was received (ms since the epoch). */
  receivedAt: number;
}

/** One converted message for a sink. */
export interface SinkItem extends Source {
  /** The FHIR Bundle, as UTF-8 JSON text (made on a conversion thread, moved here without a copy). */
  bundle: Uint8Array;
  /** The message's ordering keys: a sink that sends side by side keeps their order (header.ts orderKeys). */
  keys?: readonly string[];
}

/** A message its destination refused for good: it goes to the dead-letter store with these issues. */
export interface Refused {
  id: number;
  issues: Hl7v2Issue[];
}

/** How a sink that tries its destination again before giving up is doing, for /healthz and /metrics. */
export interface OutputTries {
  /** Requests tried again since the sink was made. */
  readonly retries: number;
  /**
   * Why the last try failed, while the destination has accepted nothing since (the sink is trying again);
   * undefined while it accepts.
   */
  readonly failing: string | undefined;
}

export interface Sink {
  /** For logs and /healthz: `files DIR`, `nats SUBJECT`, ... */
  readonly description: string;
  /** For a sink that tries again (a FHIR server): how its tries are going. */
  readonly tries?: OutputTries;
  /** Starts from the state returned by the last committed `flush` (undefined the first time). */
  open(state: unknown): Promise<void>;
  /** Takes one item; called in conversion order, which keeps each key's order. */
  write(item: SinkItem): void;
  /**
   * Makes every item written so far durable at the destination (or accepted by it). Resolves with the
   * state to commit with them and the items the destination refused for good; rejects when it cannot
   * (they will be converted again after a restart). `close`: the last flush before the listener stops
   * (files are closed and renamed into place).
   */
  flush(close?: boolean): Promise<{ state: unknown; refused: Refused[] }>;
  /** True when the sink wants a flush though nothing new came (a file old enough to be closed). */
  due?(now: number): boolean;
  /** The journal committed the last flush's state (files may now be renamed into place). */
  committed(): Promise<void>;
  close(): Promise<void>;
}
