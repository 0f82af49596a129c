// A coordinator's view of its connection to NATS: a lost server is reported at once, waited for up to a set
// time (`--nats-wait`), its return reported, and requests that are safe to repeat are repeated meanwhile;
// past that time the run is stopped with an error it can be resumed after.
import { AppError } from "../errors.js";
import { type Nats, natsFailure } from "./jetstream.js";

/** Seconds a coordinator waits for a lost NATS server before it stops the run (docs/scale-out.md). */
export const DEFAULT_NATS_WAIT_S = 300;

export interface Link {
  /** The server is away (between a disconnect and the next reconnect). */
  readonly down: boolean;
  /** Set once the server was away longer than the wait: the run cannot go on. */
  readonly gaveUp: AppError | undefined;
  /**
   * Runs a NATS request that is safe to repeat (a get, a publish with a message id, a last-value state)
   * and repeats it after a timeout, a missing responder or while the server is away, until the wait has
   * passed since its first failure.
   */
  retry<T>(what: string, request: () => Promise<T>): Promise<T>;
  close(): void;
}

export interface LinkOptions {
  waitMs: number;
  say: (line: string) => void;
  /** Called once when the wait runs out. */
  onGiveUp: (err: AppError) => void;
}

/** Errors after which the same request may well succeed: the server or its JetStream is not there yet. */
export function isTransient(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) {
    if (e.name === "TimeoutError" || e.name === "NoRespondersError" || e.name === "JetStreamNotEnabled") {
      return true;
    }
    // 10008: "JetStream system temporarily unavailable", answered while a restarted server recovers.
    if ((e as { code?: unknown }).code === 10008) return true;
  }
  return false;
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

export function watchLink(nats: Nats, options: LinkOptions): Link {
  let downSince: number | undefined;
  let gaveUp: AppError | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** Requests waiting for the server to come back. */
  let waiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  const wake = (err?: Error) => {
    const all = waiters;
    waiters = [];
    for (const w of all) {
      if (err) w.reject(err);
      else w.resolve();
    }
  };
  const lost = () => {
    if (downSince !== undefined || gaveUp) return;
    downSince = Date.now();
    options.say(
      `lost the connection to NATS at ${nats.url}; trying again for up to ${seconds(options.waitMs)} (--nats-wait)`,
    );
    timer = setTimeout(() => {
      gaveUp = new AppError(
        503,
        "nats_unreachable",
        `NATS at ${nats.url} could not be reached for ${seconds(options.waitMs)} (--nats-wait)`,
      );
      options.onGiveUp(gaveUp);
      wake(gaveUp);
    }, options.waitMs);
  };
  const back = () => {
    if (downSince === undefined || gaveUp) return;
    options.say(`connected to NATS at ${nats.url} again after ${seconds(Date.now() - downSince)}`);
    clearTimeout(timer);
    downSince = undefined;
    wake();
  };
  void (async () => {
    for await (const s of nats.nc.status()) {
      if (s.type === "disconnect" || s.type === "staleConnection") lost();
      else if (s.type === "reconnect") back();
    }
  })().catch(() => {});

  const backUp = () =>
    new Promise<void>((resolve, reject) => {
      if (gaveUp) reject(gaveUp);
      else if (downSince === undefined) setTimeout(resolve, 500);
      else waiters.push({ resolve, reject });
    });

  return {
    get down() {
      return downSince !== undefined;
    },
    get gaveUp() {
      return gaveUp;
    },
    retry: async (what, request) => {
      let first: number | undefined;
      for (;;) {
        if (gaveUp) throw gaveUp;
        try {
          return await request();
        } catch (err) {
          if (gaveUp) throw gaveUp;
          if (!isTransient(err)) throw natsFailure(what, err);
          first ??= Date.now();
          if (Date.now() - first >= options.waitMs) {
            throw natsFailure(`${what} (tried for ${seconds(options.waitMs)}, --nats-wait)`, err);
          }
          await backUp();
        }
      }
    },
    close: () => {
      clearTimeout(timer);
      wake(new AppError(503, "nats_closed", "the connection to NATS was closed"));
    },
  };
}
