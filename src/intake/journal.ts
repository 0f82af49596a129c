// What the listener asks of a journal: keep a message durably (or say it was kept before), hand back
// what is kept but not converted yet after a restart, and mark messages converted together with the
// state of the output they went to, in one commit. Two kinds: LMDB (lmdb-journal.ts) and JetStream.

/** A message as the journal keeps it: the frame's bytes as received, and what was read of it. */
export interface JournalEntry {
  /** The journal's own position of the message, increasing in the order messages were kept. */
  id: number;
  /** When it was received (ms since the epoch). */
  at: number;
  bytes: Buffer;
  /** The ordering keys (header.ts orderKeys). */
  keys: string[];
  /** `MSH-3|MSH-4` and MSH-10, to name the message in outputs and dead letters. */
  sender: string;
  controlId: string;
}

export type KeepResult =
  | { kind: "kept"; id: number }
  /** Kept before under the same sender and MSH-10, within the window: the answer it was given then. */
  | { kind: "duplicate"; id: number; answer: Buffer };

/** What the output (sinks) committed, stored with the marks of the messages it holds. */
export type OutputState = Record<string, unknown>;

export interface Journal {
  /** "lmdb" or "jetstream", for /healthz. */
  readonly kind: string;
  /** Names this journal for good (in output message ids): a random id kept in it, or the stream name. */
  readonly identity: string;
  /**
   * Keeps a message with the answer it is about to get, under its resend key; resolves once durable (or
   * with the original answer of a resend). Rejects when the message could not be kept. `formerKey`: the key
   * an earlier listener made of the same message (header.ts formerResendKey); a journal that can look it up
   * cheaply takes a message kept under it for a resend too.
   */
  keep(
    entry: Omit<JournalEntry, "id">,
    resendKey: string,
    answer: Buffer,
    formerKey?: string,
  ): Promise<KeepResult>;
  /** Messages kept and not marked converted, in the order they were kept. */
  unconverted(): AsyncIterable<JournalEntry>;
  /** Marks messages converted, with the output state that holds them, in one durable commit. */
  converted(ids: readonly number[], state: OutputState): Promise<void>;
  /** The output state of the last `converted` commit (undefined for a new journal). */
  outputState(): OutputState | undefined;
  /** Messages kept and not converted (a gauge for /metrics). */
  pendingCount(): number;
  /** Forgets resend keys older than the window; resolves with how many. */
  prune(now: number): Promise<number>;
  close(): Promise<void>;
}
