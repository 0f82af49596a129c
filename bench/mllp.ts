// Benchmark `mllp`: `crossmap listen --mllp` (a real CLI process, journal on, default durability: each ACK
// after the fsync) fed by 1 and by 8 concurrent loopback connections, each sending the 22 sample messages
// (test/fixtures/hl7v2/samples, each with its own MSH-10) one at a time and waiting for the ACK, as MLLP
// senders do. Measures messages/s acknowledged, messages/s acknowledged and converted (until the listener's
// /healthz counts them all converted), p50/p99 ACK latency (and the p99 apart of the messages answered once
// kept and of the one sample whose sender asks only for the application ACK, which comes after the
// conversion: OUL-R22-01, MSH-15 NE, MSH-16 AL), the listener's CPU and its threads' voluntary
// context switches (hand-offs between threads) per message. A second listener maps only MSH
// (bench/mllp-header-only.yaml): what the listener itself costs, apart from the conversion. Baseline in the
// same run: the same clients against a plain Node MLLP server that ACKs at once (bench/mllp-echo.mjs).
// Prints a table and one JSON line. Knobs: BENCH_MESSAGES (per case, default 2000), BENCH_WARMUP (messages
// of each listener's uncounted warm-up round, default 10,000; see WARMUP), BENCH_WORKERS (listener
// conversion threads), BENCH_LISTEN_ARGS (more `crossmap listen` flags, space-separated, e.g.
// `--durability commit`), BENCH_LISTEN_NODE_ARGS (node flags for the listener), BENCH_LISTEN_LOG (a file
// for the listener's stdout, e.g. with --trace-gc), BENCH_PATIENTS=distinct (below), BENCH_CASES,
// BENCH_BASE_CLI (another build, run before and after this one on each case: base, this, this, base; each
// build's figures are the means of its two runs), BENCH_BASE_ARGS and BENCH_BASE_NODE_ARGS (more
// `crossmap listen` flags and node flags for the base build's listener only), BENCH_ATTACH (below).
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { waitsForConversion } from "../src/intake/answers.js";
import { judge } from "../src/intake/verdict.js";
import { samples, withControlId } from "../test/intake/mllp-harness.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = join(root, "bin", "crossmap.js");
const TOTAL = Number(process.env.BENCH_MESSAGES ?? 2000);
/**
 * Messages of each listener's warm-up round, not counted. V8 goes on compiling the mapping code for the first
 * ~10,000 messages (`node --trace-opt`: hundreds of functions optimised per 2,200 messages for the first
 * 6,600, tens after 10,000), and each conversion thread compiles its own: a round of 4,000 after 4,000 of
 * warm-up measured 1,179 converted/s where one after 8,000 measured 1,352-1,384 (same hour). 10,000 by
 * default, so that the figures are a running listener's; BENCH_WARMUP=0 measures a listener just started.
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10_000);
const texts = samples().map((s) => s.text);

function started(
  child: ChildProcess,
  pattern: RegExp,
  stream: "stdout" | "stderr",
): Promise<RegExpExecArray> {
  let log = "";
  return new Promise((resolve, reject) => {
    child[stream]?.on("data", (d: Buffer) => {
      log += d.toString();
      const m = pattern.exec(log);
      if (m) resolve(m);
    });
    child.on("exit", (code) => reject(new Error(`exited with ${code}: ${log}`)));
  });
}

/**
 * Whether a sample asks only for the application ACK (the listener's own rule, answers.ts): its sender waits
 * for the conversion, not only for the journal (OUL-R22-01 among the samples), so its latency is counted
 * apart too.
 */
const appAckOnly = texts.map((t) => {
  const v = judge(Buffer.from(t, "latin1"), "patient");
  return v.kind === "keep" && waitsForConversion(v.header);
});

/**
 * BENCH_PATIENTS=distinct: each message's first PID-3 identifier gets a suffix of its own, as in a feed of
 * many patients. As they are, 14 of the 22 samples name one patient (PATID1234), so most conversions wait
 * in that patient's order, one at a time.
 */
const DISTINCT = process.env.BENCH_PATIENTS === "distinct";
const patientOf = (text: string, i: number): string =>
  DISTINCT
    ? text.replace(/\rPID\|([^|]*)\|([^|]*)\|([^|^~]*)/, (_m, a, b, c) => `\rPID|${a}|${b}|${c}-${i}`)
    : text;

interface Latency {
  ms: number;
  /** Answered by the application ACK after the conversion (appAckOnly), not once kept. */
  app: boolean;
}

/** One connection sending its share one at a time; resolves with each message's ACK latency. */
async function sender(port: number, first: number, count: number, run: string): Promise<Latency[]> {
  const socket: Socket = await new Promise((resolve) => {
    const s = connect(port, "127.0.0.1", () => resolve(s));
  });
  socket.setNoDelay(true);
  let buffer = Buffer.alloc(0);
  let answered: (() => void) | undefined;
  socket.on("data", (d: Buffer) => {
    buffer = Buffer.concat([buffer, d]);
    const end = buffer.indexOf(0x1c);
    if (end >= 0 && end + 1 < buffer.length) {
      const text = buffer.subarray(1, end).toString();
      buffer = buffer.subarray(end + 2);
      if (!text.includes("\rMSA|AA|")) throw new Error(`not AA: ${text}`);
      answered?.();
    }
  });
  const latencies: Latency[] = [];
  for (let i = first; i < first + count; i++) {
    const text = patientOf(withControlId(texts[i % texts.length] as string, `${run}-${i}`), i);
    const t0 = performance.now();
    const done = new Promise<void>((resolve) => {
      answered = resolve;
    });
    socket.write(Buffer.concat([Buffer.of(0x0b), Buffer.from(text), Buffer.of(0x1c, 0x0d)]));
    await done;
    latencies.push({ ms: performance.now() - t0, app: appAckOnly[i % texts.length] as boolean });
  }
  socket.destroy();
  return latencies;
}

interface Result {
  acked: number;
  converted?: number;
  p50: number;
  p99: number;
  /** p99 of the messages answered once kept, and of those answered by the application ACK (appAckOnly). */
  p99Kept: number;
  p99App: number;
}

async function drive(
  port: number,
  connections: number,
  run: string,
  convertedCount?: () => Promise<number>,
  total = TOTAL,
): Promise<Result> {
  const t0 = performance.now();
  const share = Math.floor(total / connections);
  const all = (
    await Promise.all(Array.from({ length: connections }, (_, c) => sender(port, c * share, share, run)))
  ).flat();
  const ackedAt = performance.now();
  let converted: number | undefined;
  if (convertedCount) {
    const target = all.length;
    while ((await convertedCount()) < target) await new Promise((r) => setTimeout(r, 20));
    converted = all.length / ((performance.now() - t0) / 1000);
  }
  const pct = (list: Latency[], p: number) => {
    const ms = list.map((l) => l.ms).sort((a, b) => a - b);
    return ms.length === 0 ? Number.NaN : (ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] as number);
  };
  return {
    acked: all.length / ((ackedAt - t0) / 1000),
    ...(converted !== undefined ? { converted } : {}),
    p50: pct(all, 0.5),
    p99: pct(all, 0.99),
    p99Kept: pct(
      all.filter((l) => !l.app),
      0.99,
    ),
    p99App: pct(
      all.filter((l) => l.app),
      0.99,
    ),
  };
}

interface Started {
  port: number;
  /** Messages converted so far, and the listener process's CPU seconds (from /healthz and /metrics). */
  converted(): Promise<number>;
  cpu(): Promise<number>;
  /** CPU seconds of the listener's main thread alone (Linux /proc; NaN elsewhere). */
  mainCpu(): number;
  /** Voluntary context switches of all the listener's threads so far (Linux /proc; NaN elsewhere). */
  switches(): number;
  pid: number;
  stop(): Promise<void>;
}

async function startListener(
  dir: string,
  extra: string[],
  bin: string,
  nodeArgs: string[] = [],
): Promise<Started> {
  const child = spawn(process.execPath, [
    ...(process.env.BENCH_LISTEN_NODE_ARGS
      ? process.env.BENCH_LISTEN_NODE_ARGS.split(" ").filter(Boolean)
      : []),
    ...nodeArgs,
    bin,
    "listen",
    "--mllp",
    "0",
    "--host",
    "127.0.0.1",
    "--journal",
    join(dir, "journal"),
    "--out-dir",
    join(dir, "out"),
    "--health-port",
    "127.0.0.1:0",
    ...(process.env.BENCH_WORKERS ? ["--workers", process.env.BENCH_WORKERS] : []),
    ...(process.env.BENCH_LISTEN_ARGS ? process.env.BENCH_LISTEN_ARGS.split(" ").filter(Boolean) : []),
    ...extra,
  ]);
  // The listener's stdout (e.g. BENCH_LISTEN_NODE_ARGS=--trace-gc) to BENCH_LISTEN_LOG, or drained: left
  // unread, a full pipe would stop the listener.
  if (process.env.BENCH_LISTEN_LOG)
    child.stdout.pipe(createWriteStream(process.env.BENCH_LISTEN_LOG, { flags: "a" }));
  else child.stdout.resume();
  const m = await started(child, /on 127\.0\.0\.1:(\d+);.*health on (http:\S+)/, "stderr");
  const health = m[2] as string;
  return {
    port: Number(m[1]),
    converted: async () =>
      ((await (await fetch(`${health}/healthz`)).json()) as { converted_total: number }).converted_total,
    pid: child.pid as number,
    mainCpu: () => threadCpu(child.pid as number),
    switches: () => voluntarySwitches(child.pid as number),
    cpu: async () =>
      Number(/\nprocess_cpu_seconds_total (\S+)/.exec(await (await fetch(`${health}/metrics`)).text())?.[1]),
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((r) => child.on("exit", r));
    },
  };
}

/** User + system CPU seconds of one thread (the main thread's id is the process id), from /proc. */
function threadCpu(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * Voluntary context switches of every thread of a process, from /proc: each is a thread going to sleep
 * to wait (for a socket, the disk, or another thread), so per message they count the hand-offs between
 * threads, which machine load distorts far less than time.
 */
function voluntarySwitches(pid: number): number {
  try {
    let n = 0;
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      try {
        n += Number(
          /\nvoluntary_ctxt_switches:\s+(\d+)/.exec(
            readFileSync(`/proc/${pid}/task/${t}/status`, "utf8"),
          )?.[1],
        );
      } catch {
        // The thread ended meanwhile.
      }
    }
    return n;
  } catch {
    return Number.NaN;
  }
}

/**
 * BENCH_ATTACH: a command run against the listener while a case runs, stopped with SIGINT at its end;
 * `{pid}` and `{case}` are filled in. For example on-CPU samples, which machine load does not distort
 * as wall-clock profiles are (give the listener --perf-basic-prof in BENCH_LISTEN_NODE_ARGS for
 * JavaScript names): `perf record -F 1999 -p {pid} -o /tmp/{case}.data`, then
 * `perf report -i /tmp/<case>.data --sort pid,sym` (pid is the thread); or system calls per thread: `strace -c -f -p {pid} -o /tmp/{case}.txt`.
 */
function attach(pid: number, name: string): { stop(): Promise<void> } | undefined {
  const template = process.env.BENCH_ATTACH;
  if (!template) return undefined;
  const words = template
    .split(" ")
    .map((w) => w.replace("{pid}", String(pid)).replace("{case}", name.replace(/[^\w-]+/g, "_")));
  const p = spawn(words[0] as string, words.slice(1), { stdio: "ignore" });
  return {
    stop: async () => {
      p.kill("SIGINT");
      await new Promise((r) => p.on("exit", r));
    },
  };
}

interface Row {
  name: string;
  connections: number;
  r: Result;
  /** Listener CPU ms per message (all its threads). */
  cpuMs?: number;
  /** Of which the main thread (framing, journal, answers, output). */
  mainMs?: number;
  /** Voluntary context switches per message, all threads. */
  switches?: number;
}

/** One listener: a warm-up round, then each connection count; acked and converted, CPU per message. */
async function measure(
  name: string,
  extra: string[],
  counts: number[],
  bin = cli,
  nodeArgs: string[] = [],
): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "crossmap-bench-mllp-"));
  const l = await startListener(dir, extra, bin, nodeArgs);
  const rows: Row[] = [];
  try {
    let base = 0;
    const converted = async () => (await l.converted()) - base;
    // Not counted: the conversion threads compile their code paths (WARMUP).
    if (WARMUP > 0) await drive(l.port, 8, `${name}-warm`, converted, WARMUP);
    for (const connections of counts) {
      base = await l.converted();
      const cpu0 = await l.cpu();
      const main0 = l.mainCpu();
      const switches0 = l.switches();
      const perf = attach(l.pid, `${name}-${connections}`);
      const r = await drive(l.port, connections, `${name}-${connections}`, converted);
      await perf?.stop();
      const n = Math.floor(TOTAL / connections) * connections;
      const cpuMs = (((await l.cpu()) - cpu0) * 1000) / n;
      const mainMs = ((l.mainCpu() - main0) * 1000) / n;
      const switches = (l.switches() - switches0) / n;
      rows.push({ name: `${name}, ${connections} conn.`, connections, r, cpuMs, mainMs, switches });
    }
  } finally {
    await l.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** The means of several runs of the same rows (each run's rows in the same order). */
function meanRows(runs: Row[][]): Row[] {
  if (runs.length === 1) return runs[0] as Row[];
  return (runs[0] as Row[]).map((first, i) => {
    const pick = (f: (r: Row) => number | undefined) => {
      const values = runs.map((rs) => f(rs[i] as Row));
      let sum = 0;
      for (const v of values) {
        if (v === undefined) return undefined;
        sum += v;
      }
      return sum / values.length;
    };
    const row: Row = {
      name: first.name,
      connections: first.connections,
      r: {
        acked: pick((r) => r.r.acked) as number,
        p50: pick((r) => r.r.p50) as number,
        p99: pick((r) => r.r.p99) as number,
        p99Kept: pick((r) => r.r.p99Kept) as number,
        p99App: pick((r) => r.r.p99App) as number,
      },
    };
    const converted = pick((r) => r.r.converted);
    if (converted !== undefined) row.r.converted = converted;
    const cpuMs = pick((r) => r.cpuMs);
    if (cpuMs !== undefined) row.cpuMs = cpuMs;
    const mainMs = pick((r) => r.mainMs);
    if (mainMs !== undefined) row.mainMs = mainMs;
    const switches = pick((r) => r.switches);
    if (switches !== undefined) row.switches = switches;
    return row;
  });
}

/**
 * `BENCH_CASES=listen,msh` runs only those cases (echo, listen: 1 and 8 connections, listen1, listen8, msh);
 * the echo baseline always runs.
 */
const cases = new Set((process.env.BENCH_CASES ?? "echo,listen,msh").split(","));
const echo = spawn(process.execPath, [fileURLToPath(new URL("./mllp-echo.mjs", import.meta.url))]);
try {
  const echoPort = Number((await started(echo, /(\d+)\n/, "stdout"))[1]);
  const rows: Row[] = [];
  for (const connections of [1, 8]) {
    rows.push({
      name: `echo, ${connections} conn.`,
      connections,
      r: await drive(echoPort, connections, `echo${connections}`),
    });
  }
  // BENCH_BASE_CLI: another build's bin/crossmap.js (e.g. main's), measured in the same run as `base ...`.
  const bins: [string, string][] = [["", cli]];
  if (process.env.BENCH_BASE_CLI) bins.unshift(["base ", process.env.BENCH_BASE_CLI]);
  const headerOnly = ["--crossmap", join(root, "bench", "mllp-header-only.yaml")];
  // Each case on both builds back to back, so that a change of machine load hits both alike.
  const runs: [string, string[], number[]][] = [];
  if (cases.has("listen")) runs.push(["listen", [], [1, 8]]);
  if (cases.has("listen8")) runs.push(["listen", [], [8]]);
  if (cases.has("listen1")) runs.push(["listen", [], [1]]);
  if (cases.has("msh")) runs.push(["listen MSH only", headerOnly, [8]]);
  // With a base build, each case runs base, this, this, base and each build's figures are the means of its
  // two: whichever listener runs second in a pair measured 10-15% more messages a second (the same build
  // run twice: 485 -> 539 and 690 -> 795 converted/s), so base-then-this alone credited a change with that.
  const order = bins.length === 2 ? [bins[0], bins[1], bins[1], bins[0]] : bins;
  for (const [name, extra, counts] of runs) {
    const measured = new Map<string, Row[][]>();
    for (const [label, bin] of order as [string, string][]) {
      // BENCH_BASE_ARGS: more flags for the base build's listener only (e.g. `--workers 2` against this build).
      const more = label && process.env.BENCH_BASE_ARGS ? process.env.BENCH_BASE_ARGS.split(" ") : [];
      // BENCH_BASE_NODE_ARGS: node flags for the base build's listener only (a V8 flag against none).
      const nodeArgs =
        label && process.env.BENCH_BASE_NODE_ARGS ? process.env.BENCH_BASE_NODE_ARGS.split(" ") : [];
      const got = await measure(`${label}${name}`, [...extra, ...more], counts, bin, nodeArgs);
      measured.set(label, [...(measured.get(label) ?? []), got]);
    }
    for (const [label] of bins) rows.push(...meanRows(measured.get(label) as Row[][]));
  }
  const echo8 = rows[1]?.r.acked ?? 1;
  const f = (n: number, d = 0) =>
    n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
  console.log(
    `${TOTAL} messages per case after ${WARMUP} of warm-up (${texts.length} samples cycled${DISTINCT ? ", a patient of its own each" : ""}, each sender waits for its ACK), Node ${process.version}, ` +
      `${cpus().length} x ${cpus()[0]?.model.split(" ").slice(0, 2).join(" ")}, load ${loadavg()[0]?.toFixed(1)}, ` +
      `conversion threads ${process.env.BENCH_WORKERS ?? "as each build sets them by default"}`,
  );
  console.log(
    "case                           acked/s  converted/s  ACK p50 ms  ACK p99 ms  kept p99  app p99  CPU ms/msg  main ms/msg  switches/msg  acked vs echo 8",
  );
  for (const { name, r, cpuMs, mainMs, switches } of rows) {
    console.log(
      `${name.padEnd(29)} ${f(r.acked).padStart(8)} ${r.converted === undefined ? "           -" : f(r.converted).padStart(12)} ` +
        `${f(r.p50, 2).padStart(11)} ${f(r.p99, 2).padStart(11)} ${f(r.p99Kept, 1).padStart(9)} ${f(r.p99App, 1).padStart(8)} ${cpuMs === undefined ? "          -" : f(cpuMs, 2).padStart(11)} ` +
        `${mainMs === undefined ? "           -" : f(mainMs, 2).padStart(12)} ` +
        `${switches === undefined ? "             -" : f(switches, 2).padStart(13)} ` +
        `${(r.acked / echo8).toFixed(4).padStart(16)}`,
    );
  }
  console.log(
    JSON.stringify({
      bench: "mllp",
      messages: TOTAL,
      warmup: WARMUP,
      patients: DISTINCT ? "distinct" : "as in the samples",
      node: process.version,
      load: Number(loadavg()[0]?.toFixed(2)),
      cases: Object.fromEntries(
        rows.map(({ name, r, cpuMs, mainMs, switches }) => [
          name,
          {
            acked_per_s: Math.round(r.acked),
            ...(r.converted !== undefined ? { acked_and_converted_per_s: Math.round(r.converted) } : {}),
            ack_p50_ms: Number(r.p50.toFixed(2)),
            ack_p99_ms: Number(r.p99.toFixed(2)),
            ack_p99_kept_ms: Number(r.p99Kept.toFixed(2)),
            ack_p99_app_ms: Number(r.p99App.toFixed(2)),
            ...(cpuMs !== undefined ? { cpu_ms_per_message: Number(cpuMs.toFixed(3)) } : {}),
            ...(mainMs !== undefined ? { main_thread_cpu_ms_per_message: Number(mainMs.toFixed(3)) } : {}),
            ...(switches !== undefined
              ? { voluntary_switches_per_message: Number(switches.toFixed(2)) }
              : {}),
            ratio_acked_to_echo_8: Number((r.acked / echo8).toFixed(4)),
          },
        ]),
      ),
    }),
  );
} finally {
  echo.kill();
}
