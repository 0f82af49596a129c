// Whether `bin/crossmap.js` runs itself again with a capped young generation, and with which arguments.
// Node 24's V8 (13.x) lets the main thread's young generation grow to 128 MB (two 64 MB semi-spaces), where
// Node 20 and 22 stop at 32 MB; a run that allocates fast (mapping) fills it, so the same command held
// ~70-100 MB more at its peak on Node 24: `crossmap map` of the HL7 v2 bench input with --workers 1, 252 MB
// against 177 MB capped; the CSV sink's 1M OMOP rows 282 MB against 210 MB, and no slower (CPU 8.4 s against
// 9.4 s). A running process cannot change its heap's layout (v8.setFlagsFromString is read only at start-up),
// so the data-moving commands replace their own process image with one started with the flag
// (process.execve: same pid, same stdio, no child to supervise) before loading anything else. Worker threads
// have their own cap (pool.ts).

/** Node 20 and 22's semi-space: what the figures in the docs were measured with. */
export const SEMI_SPACE_MB = 16;

/** Commands that move records (and so allocate at a high rate); the others are not worth a second start. */
const DATA_COMMANDS = new Set([
  "map",
  "stream",
  "listen",
  "roundtrip",
  "suggest",
  "serve",
  "worker",
  "publish",
  "db",
  "dq",
  "vocab",
  "import",
  "export",
  "validate",
  "revalidate",
  "demo",
]);

/** What the decision reads of `process`, so that a test can give it any Node. */
export interface ProcessView {
  execPath: string;
  execArgv: readonly string[];
  argv: readonly string[];
  platform: string;
  v8: string;
  env: Readonly<Record<string, string | undefined>>;
  canExecve: boolean;
}

/** The argv to run this command again with, or undefined to go on in this process. */
export function youngGenerationArgs(p: ProcessView): string[] | undefined {
  if (!p.canExecve || p.platform === "win32") return undefined;
  if (Number(p.v8.split(".")[0]) < 13) return undefined;
  if (p.env.CROSSMAP_KEEP_HEAP === "1") return undefined;
  // Set already: by us (this is the second start), by the user, or through NODE_OPTIONS.
  const flag = /(^|\s)--max-semi-space-size(=|\s|$)/;
  if (p.execArgv.some((a) => flag.test(a)) || flag.test(p.env.NODE_OPTIONS ?? "")) return undefined;
  const command = p.argv.slice(2).find((a) => !a.startsWith("-"));
  if (command === undefined || !DATA_COMMANDS.has(command)) return undefined;
  if (p.argv.includes("--help") || p.argv.includes("-h")) return undefined;
  return [p.execPath, `--max-semi-space-size=${SEMI_SPACE_MB}`, ...p.execArgv, ...p.argv.slice(1)];
}

/** Replaces this process with one whose young generation is capped, when youngGenerationArgs says so. */
export function capYoungGeneration(): void {
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never })
    .execve;
  const args = youngGenerationArgs({
    execPath: process.execPath,
    execArgv: process.execArgv,
    argv: process.argv,
    platform: process.platform,
    v8: process.versions.v8,
    env: process.env,
    canExecve: typeof execve === "function",
  });
  if (args === undefined || execve === undefined) return;
  try {
    execve.call(process, process.execPath, args, process.env);
  } catch {
    // Refused (a sandbox without exec, a vanished binary): run as it is, with Node's own heap sizes.
  }
}
