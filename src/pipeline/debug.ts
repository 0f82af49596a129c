// CROSSMAP_DEBUG=pipeline: per-thread CPU and event-loop use on stderr at the end of a run, because the
// speed-up of many threads is bounded by the busiest one, which a process-wide CPU total cannot show.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { performance } from "node:perf_hooks";

export const debugPipeline = process.env.CROSSMAP_DEBUG?.includes("pipeline") ?? false;

/** What one thread spent: CPU of this thread alone (Linux /proc), and event-loop utilisation. */
export interface ThreadStats {
  tid: number;
  cpuMs: number;
  /** Time the thread was runnable but another thread or process had the core (schedstat). */
  waitMs: number;
  /** Time since the thread started (10 ms resolution). */
  lifeMs: number;
  elu: number;
  batches: number;
}

/** CPU milliseconds of the calling thread (user + system), or -1 where /proc/thread-self is missing. */
export function threadCpuMs(): number {
  return taskCpuMs("/proc/thread-self/stat");
}

function taskCpuMs(path: string): number {
  try {
    const stat = readFileSync(path, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return -1;
  }
}

/** How long the calling thread has existed: now minus its start time, both from /proc (clock ticks). */
function threadLifeMs(): number {
  try {
    const stat = readFileSync("/proc/thread-self/stat", "utf8");
    // starttime is field 22 of stat(5), in clock ticks since boot; /proc/uptime is in seconds since boot.
    const started = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]) * 10;
    return Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]) * 1000 - started;
  } catch {
    return performance.now();
  }
}

function threadId(): number {
  try {
    return Number(readlinkSync("/proc/thread-self").split("/").pop());
  } catch {
    return -1;
  }
}

/** CPU of every other thread of the process (V8's GC helpers, libuv's I/O pool), busiest first. */
export function otherThreadsCpuMs(known: number[]): number[] {
  try {
    return readdirSync("/proc/self/task")
      .map(Number)
      .filter((tid) => !known.includes(tid))
      .map((tid) => taskCpuMs(`/proc/self/task/${tid}/stat`))
      .filter((ms) => ms > 0)
      .sort((a, b) => b - a);
  } catch {
    return [];
  }
}

/** CPU and run-queue wait of the calling thread in ms, from /proc/thread-self/schedstat (ns precision). */
function schedstat(): [number, number] {
  try {
    const [cpu, wait] = readFileSync("/proc/thread-self/schedstat", "utf8").split(" ");
    return [Number(cpu) / 1e6, Number(wait) / 1e6];
  } catch {
    return [threadCpuMs(), 0];
  }
}

export function threadStats(batches: number): ThreadStats {
  const [cpuMs, waitMs] = schedstat();
  return {
    tid: threadId(),
    cpuMs,
    waitMs,
    lifeMs: threadLifeMs(),
    elu: performance.eventLoopUtilization().utilization,
    batches,
  };
}

export function formatStats(label: string, s: ThreadStats, records: number): string {
  const per1m = records > 0 ? ((s.cpuMs / records) * 1e6) / 1000 : 0;
  // What is left of the thread's life when it neither ran nor waited for a core: it had nothing to do.
  const idle = s.lifeMs - s.cpuMs - s.waitMs;
  return `${label}: cpu ${(s.cpuMs / 1000).toFixed(2)} s (${per1m.toFixed(2)} s/1M records), waited for a core ${(s.waitMs / 1000).toFixed(2)} s, idle ${(idle / 1000).toFixed(2)} s of ${(s.lifeMs / 1000).toFixed(2)} s, elu ${s.elu.toFixed(2)}, ${s.batches} batches`;
}
