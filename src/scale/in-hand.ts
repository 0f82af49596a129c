// Keeps the batches a worker holds from being redelivered while it is alive and getting to them: the server
// redelivers a batch ack_wait after its last sign of progress, so without one a batch waiting its turn
// behind others in a busy worker's hands goes to a second worker (or back to the same) and is mapped twice.
import type { JsMsg } from "@nats-io/jetstream";

/** Progress is signalled at least this often, and three times per ack wait when that is shorter. */
const MAX_EVERY_MS = 1000;

/** How often to tell the server a batch in hand is still being worked on, for a consumer's ack wait. */
export function progressEvery(ackWaitMs: number): number {
  return Math.max(50, Math.min(MAX_EVERY_MS, Math.floor(ackWaitMs / 3)));
}

export interface InHand {
  /** Signals progress now: called right before each long step, since no timer fires while the thread maps. */
  working(): void;
  /** Stops the signals, once the batch is acknowledged or handed back. */
  release(): void;
}

/** Signals progress on `m` every `everyMs` until released. */
export function holdInHand(m: JsMsg, everyMs: number): InHand {
  const working = () => {
    try {
      m.working();
    } catch {
      // The connection is gone: the server redelivers the batch after its ack wait whatever we do.
    }
  };
  const timer = setInterval(working, everyMs);
  timer.unref();
  return { working, release: () => clearInterval(timer) };
}
