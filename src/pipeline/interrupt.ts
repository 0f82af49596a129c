// SIGINT/SIGTERM during `crossmap map`: the run stops taking batches, finishes its summary and errors file
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

/** Exit code for a run ended by `signal`: 130 for SIGINT, 143 for SIGTERM, as shells report them. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return signal === "SIGINT" ? 130 : 143;
}

/** Catches SIGINT and SIGTERM for the length of a run. */
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
  process.on("SIGINT", on);
  process.on("SIGTERM", on);
  return {
    get signal() {
      return signal;
    },
    wait,
    dispose() {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
    },
  };
}
