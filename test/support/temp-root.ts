// The suite's globalSetup: every temporary file and folder of a run goes under one folder of its own, which
// is removed when the run ends. The tests and the CLI processes they start make theirs with os.tmpdir(),
// which reads TMPDIR; before this, each run left ~85 folders in /tmp (those of tests that stop a process
// with SIGKILL, or fail before their cleanup, and those of helpers that never removed theirs).
// Both projects (unit, integration) run this in the one vitest process: the first makes the folder, the
// last to finish removes it. CROSSMAP_KEEP_TMP=1 keeps it (its path is printed) for a post-mortem.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const KEEP_ENV = "CROSSMAP_KEEP_TMP";

interface Root {
  dir: string;
  users: number;
  /** TMPDIR as it was before the run. */
  before: string | undefined;
}

const holder = globalThis as { __crossmapTempRoot?: Root };

export default function setup(): () => void {
  if (holder.__crossmapTempRoot === undefined) {
    const before = process.env.TMPDIR;
    const dir = mkdtempSync(join(tmpdir(), "crossmap-tests-"));
    // As /tmp: the PostgreSQL tests run initdb as an unprivileged account in a folder of their own in it.
    chmodSync(dir, 0o1777);
    process.env.TMPDIR = dir;
    holder.__crossmapTempRoot = { dir, users: 0, before };
  }
  const root = holder.__crossmapTempRoot;
  root.users++;
  return () => {
    if (--root.users > 0) return;
    holder.__crossmapTempRoot = undefined;
    if (root.before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = root.before;
    if (process.env[KEEP_ENV] === "1") {
      process.stdout.write(`\n${KEEP_ENV}=1: the run's temporary files are kept in ${root.dir}\n`);
      return;
    }
    // A process a test started may still be closing files in it: a few tries, never a failed run.
    rmSync(root.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  };
}
