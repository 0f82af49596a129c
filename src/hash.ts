// node:crypto's createHash, loaded on first use: loading node:crypto costs ~7 ms of start-up on Node 20,
// and a run needs it only when it derives ids or checks a built-in crossmap changed since the build.
import type { Hash } from "node:crypto";

let load: ((algorithm: string) => Hash) | undefined;

export function createHash(algorithm: string): Hash {
  load ??= process.getBuiltinModule("node:crypto").createHash;
  return load(algorithm);
}
