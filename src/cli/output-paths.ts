// The files a map run writes (-o, --errors, --summary) must not be one of its inputs or one another:
// -o over an input replaced the export with its mapping, and two outputs on one path kept only the one
// renamed or closed last. Devices, pipes and links (/dev/null, /dev/stdout) may be shared.
import { realpath, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { AppError } from "../errors.js";

export interface OutputPath {
  flag: string;
  path: string | undefined;
}

/** Throws a usage error (exit 2) when an output is a directory, an input, or another output's file. */
export async function checkOutputPaths(
  outputs: readonly OutputPath[],
  inputs: readonly string[],
): Promise<void> {
  const taken = new Map<string, string>();
  for (const input of inputs) {
    const key = await fileKey(input);
    if (key !== undefined) taken.set(key, `input ${input}`);
  }
  for (const { flag, path } of outputs) {
    if (path === undefined || path === "-") continue;
    const info = await stat(path).catch(() => undefined);
    if (info?.isDirectory()) throw new AppError(400, "usage", `${flag} ${path} is a directory; give a file`);
    const key = await fileKey(path);
    if (key === undefined) continue;
    const other = taken.get(key);
    if (other !== undefined) {
      throw new AppError(400, "usage", `${flag} ${path} is the file of ${other}; give another path`);
    }
    taken.set(key, `${flag} ${path}`);
  }
}

/** The real path of a regular file, or of a file not there yet; undefined for anything else. */
async function fileKey(path: string): Promise<string | undefined> {
  if (path === "-") return undefined;
  const info = await stat(path).catch(() => undefined);
  if (info !== undefined) return info.isFile() ? realpath(path) : undefined;
  const dir = await realpath(dirname(path)).catch(() => undefined);
  return dir === undefined ? resolve(path) : join(dir, basename(path));
}
