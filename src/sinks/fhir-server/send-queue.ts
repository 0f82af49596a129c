// What both dispatchers (dispatcher.ts, merging-dispatcher.ts) share: the failure that stops sending, the
// requests in flight, and the two waits on them: a submitter held back while the queue is full, and the
// end of a run waiting for every queued Bundle's outcome.
import type { Outgoing } from "./bundles.js";
import type { Delivery } from "./sender.js";

export interface Delivering<O> {
  deliver: (out: Outgoing<O>) => Promise<Delivery<O>>;
  /** Told of each Bundle's outcome, in completion order. */
  delivered: (out: Outgoing<O>, delivery: Delivery<O>) => void;
}

export abstract class SendQueue {
  protected inFlight = 0;
  protected failure: unknown;
  private wakeSubmit: (() => void) | undefined;
  private wakeDrain: (() => void) | undefined;

  /** Bundles queued and not started yet. */
  protected abstract queued(): number;

  /** Starts what may start now. */
  protected abstract pump(): void;

  /**
   * Sends one request; its failure stops sending. Once it has its answer (or failed), `settled` frees what
   * it held, and the queue moves on.
   */
  protected send<O>(out: Outgoing<O>, via: Delivering<O>, settled: () => void): void {
    this.inFlight++;
    via
      .deliver(out)
      .then(
        (delivery) => via.delivered(out, delivery),
        (err: unknown) => {
          this.failure ??= err;
        },
      )
      .finally(() => {
        this.inFlight--;
        settled();
        this.pump();
        this.wake();
      });
  }

  /** Returns once fewer than `window` Bundles are queued; throws the failure that stopped sending. */
  protected async room(window: number): Promise<void> {
    while (this.queued() >= window && this.failure === undefined) {
      await new Promise<void>((resolve) => {
        this.wakeSubmit = resolve;
      });
    }
    if (this.failure !== undefined) throw this.failure;
  }

  /** Waits until every queued Bundle has its outcome; throws the failure that stopped sending, if any. */
  async drain(): Promise<void> {
    while ((this.queued() > 0 || this.inFlight > 0) && this.failure === undefined) {
      await new Promise<void>((resolve) => {
        this.wakeDrain = resolve;
      });
    }
    if (this.failure !== undefined) {
      // What was started is let finish, so no request is cut off mid-way.
      while (this.inFlight > 0) {
        await new Promise<void>((resolve) => {
          this.wakeDrain = resolve;
        });
      }
      throw this.failure;
    }
  }

  /** Lets a submitter held back by a full queue go on. */
  protected wakeSubmitter(): void {
    const s = this.wakeSubmit;
    this.wakeSubmit = undefined;
    s?.();
  }

  /** Wakes both waits, to look again (an answer came, or the queue was emptied). */
  protected wake(): void {
    const d = this.wakeDrain;
    this.wakeDrain = undefined;
    this.wakeSubmitter();
    d?.();
  }
}
