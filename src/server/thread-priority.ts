// Lowers the CPU priority of the calling thread (Linux), so a busy map worker never holds the event loop off a core.
import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

/**
 * Gives the calling thread nice `niceness` (default 5: about a third of the CPU weight of a normal thread
 * when both want a core). On Linux, setpriority() on a thread id changes that thread only; the id comes
 * from /proc/thread-self. Elsewhere, or if the system refuses, the thread keeps its priority: the pool's
 * deadline still bounds every call, only /healthz latency under load is better on Linux.
 */
export function lowerThreadPriority(niceness = 5): boolean {
  if (process.platform !== "linux") return false;
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    // Never raise it: a server started under `nice 10` keeps its workers there.
    setPriority(tid, Math.max(getPriority(tid), niceness));
    return true;
  } catch {
    return false;
  }
}
