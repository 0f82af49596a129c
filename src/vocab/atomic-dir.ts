// Makes a built index appear all at once: it is written in a hidden directory beside the target and
// renamed into place only when complete, so a reader sees the previous index or the new one, never half.
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { AppError } from "../errors.js";

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
