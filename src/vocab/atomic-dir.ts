// Makes a built index appear all at once: it is written in a hidden directory beside the target and
// renamed into place only when complete, so a reader sees the previous index or the new one, never half.
import {
  closeSync,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { AppError } from "../errors.js";

/**
 * Where an index given `outDir` is published: `outDir` itself, or, when it is a symbolic link (an index
 * kept on a larger disk and linked from where tools look), the directory the link names, so the index is
 * built on that disk and the link stays a link. Renamed over, the link itself was replaced by a directory
 * built on the link's own filesystem, and the earlier index stayed at the link's target.
 */
export function publishTarget(outDir: string): string {
  let link: boolean;
  try {
    link = lstatSync(outDir).isSymbolicLink();
  } catch {
    return outDir;
  }
  if (!link) return outDir;
  try {
    return realpathSync(outDir);
  } catch {
    // A link to a directory that does not exist yet: the index is built where it points.
    return resolve(dirname(outDir), readlinkSync(outDir));
  }
}

/** Beside the target (same filesystem, so the final rename is atomic), hidden, one per building process. */
export function buildingDirFor(outDir: string): string {
  return join(dirname(outDir), `.${basename(outDir)}.building-${process.pid}`);
}

/** The target may be absent, empty, or an earlier index; anything else is somebody's data: refuse. */
export function checkReplaceable(outDir: string, dataFile: string): void {
  if (!existsSync(outDir)) return;
  if (!statSync(outDir).isDirectory()) {
    throw new AppError(409, "vocab_out_exists", `${outDir} exists and is not a directory`);
  }
  const entries = readdirSync(outDir);
  if (entries.length > 0 && !entries.includes(dataFile)) {
    throw new AppError(
      409,
      "vocab_out_exists",
      `${outDir} exists and is not a vocabulary index; refusing to replace it`,
    );
  }
}

/**
 * Flushes every file of `building` to disk, then moves it to `outDir`. rename(2) cannot replace a non-empty
 * directory, so an earlier index is moved aside first; readers that already opened it keep their memory
 * map of the unlinked file.
 */
export function publish(building: string, outDir: string): void {
  for (const f of readdirSync(building)) {
    const fd = openSync(join(building, f), "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  if (existsSync(outDir)) {
    const old = join(dirname(outDir), `.${basename(outDir)}.old-${process.pid}`);
    renameSync(outDir, old);
    renameSync(building, outDir);
    rmSync(old, { recursive: true, force: true });
  } else {
    mkdirSync(dirname(outDir), { recursive: true });
    renameSync(building, outDir);
  }
}
