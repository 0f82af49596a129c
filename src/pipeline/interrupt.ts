// SIGINT/SIGTERM/SIGHUP during `crossmap map`: the run stops taking batches, finishes its summary and errors file
// for what it handled, removes its temporary output files, and the process exits 128 + the signal's
// number. A second signal ends the process at once.

export interface Interrupt {
  /** The signal received, once one was. */
  readonly signal: NodeJS.Signals | undefined;
  /** Settles when a signal arrives. */
  readonly wait: Promise<NodeJS.Signals>;
  /** Removes the handlers (at the end of the run). */
  dispose(): void;
}

/**
 * The signals that stop a run cleanly: Ctrl-C, `kill`, and SIGHUP, which a closed terminal or a dropped
 * ssh session sends (uncaught, it left the temporary output files and an empty --summary behind).
 */
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** Exit code for a run ended by `signal`: 128 + its number (130 SIGINT, 143 SIGTERM, 129 SIGHUP), as shells report them. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return signal === "SIGINT" ? 130 : signal === "SIGHUP" ? 129 : 143;
}

/** Catches SIGINT, SIGTERM and SIGHUP for the length of a run. */
export function catchInterrupt(): Interrupt {
  let signal: NodeJS.Signals | undefined;
  let settle: (s: NodeJS.Signals) => void = () => {};
  const wait = new Promise<NodeJS.Signals>((resolve) => {
    settle = resolve;
  });
  const on = (s: NodeJS.Signals) => {
    if (signal !== undefined) process.exit(signalExitCode(signal));
    signal = s;
    settle(s);
  };
  for (const name of SIGNALS) process.on(name, on);
  return {
    get signal() {
      return signal;
    },
    wait,
    dispose() {
      for (const name of SIGNALS) process.off(name, on);
    },
  };
}

/** What `interruptible` waits give when the interrupt came first. */
export const STOPPED: unique symbol = Symbol("stopped");

/**
 * Waits for a promise, or for the interrupt, whichever comes first. Not Promise.race against the
 * interrupt's promise: every race would leave a reaction on that never-settling promise, holding its batch
 * result for the rest of the run (measured: RSS grew with the input). One listener wakes whichever wait
 * is current.
 */
export function interruptible(
  stop: Interrupt | undefined,
): <T>(p: Promise<T>) => Promise<T | typeof STOPPED> {
  let wake: (() => void) | undefined;
  stop?.wait.then(() => wake?.());
  return <T>(p: Promise<T>) => {
    if (stop === undefined) return p;
    return new Promise<T | typeof STOPPED>((resolve, reject) => {
      if (stop.signal !== undefined) return resolve(STOPPED);
      wake = () => resolve(STOPPED);
      p.then(
        (value) => {
          wake = undefined;
          resolve(value);
        },
        (err: unknown) => {
          wake = undefined;
          reject(err);
        },
      );
    });
  };
}
