// One listener per journal. Two listeners on one --journal (a second instance started by mistake, two
// containers on one volume) would each number messages from the last id they read, and the second would
// write its messages over the first's: acknowledged messages lost. A lock file in the journal directory,
// made with O_EXCL, holds the listener's pid and host; one left by a listener that died (kill -9, a crash)
// is taken over when no listener runs under that pid here.
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { AppError } from "../errors.js";
import { processExists } from "../process-exists.js";

export const LOCK_FILE = "listener.lock";

interface Holder {
  pid: number;
  host: string;
}

function readHolder(file: string): Holder | undefined {
  try {
    const [pid, host] = readFileSync(file, "utf8").split("\n");
    const n = Number(pid);
    return Number.isSafeInteger(n) && n > 0 ? { pid: n, host: host ?? "" } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a listener runs as process `pid` on this machine (EPERM: a process runs, as another user). Where
 * /proc tells a process's command line, one that is not a listener holds that pid since (a reboot reuses
 * pids, and the journal outlives it).
 */
function running(pid: number): boolean {
  if (!processExists(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes("listen");
  } catch {
    return true;
  }
}

/**
 * Takes the journal directory for this process, or throws a usage error naming the listener that holds
 * it. Answers the release, which removes the lock file if it is still this process's.
 */
export function lockJournal(dir: string, flag = "--journal"): () => void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, LOCK_FILE);
  const me = `${process.pid}\n${hostname()}\n`;
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, "wx");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") {
        throw new AppError(400, "usage", `${flag} ${dir}: cannot lock it: ${(err as Error).message}`);
      }
      const holder = readHolder(file);
      // Gone: a holder on this host that no longer runs (or whose pid is now ours: a container restarted
      // with the same pid), or a file left half written. Taken over once; a second race is refused.
      const stale =
        holder === undefined ||
        (holder.host === hostname() && (holder.pid === process.pid || !running(holder.pid)));
      if (stale && attempt === 0) {
        try {
          unlinkSync(file);
        } catch {}
        continue;
      }
      const who =
        holder === undefined ? "another listener" : `the listener with pid ${holder.pid} on ${holder.host}`;
      throw new AppError(
        400,
        "usage",
        `${flag} ${dir} is in use by ${who}: one listener per journal (stop it first, or give another ${flag}; if it is gone, remove ${file})`,
      );
    }
    try {
      writeSync(fd, me);
    } finally {
      closeSync(fd);
    }
    return () => {
      try {
        if (readFileSync(file, "utf8") === me) unlinkSync(file);
      } catch {}
    };
  }
}
