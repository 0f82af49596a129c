// SIGTERM and SIGINT for long-running processes: the first asks for a clean stop, a second one while
// stopping exits at once (as an operator pressing Ctrl-C twice expects).

/**
 * Calls `stop(name)` on SIGTERM or SIGINT. When it returns false (already stopping), the process exits
 * with 128 + the signal number. Returns the function that removes the handlers.
 */
export function onStopSignal(stop: (name: "SIGTERM" | "SIGINT") => boolean): () => void {
  const handlers = (["SIGTERM", "SIGINT"] as const).map((name) => {
    const handler = () => {
      if (!stop(name)) process.exit(name === "SIGINT" ? 130 : 143);
    };
    process.on(name, handler);
    return () => process.off(name, handler);
  });
  return () => {
    for (const off of handlers) off();
  };
}
