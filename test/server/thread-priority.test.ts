// The map workers' lower CPU priority: a thread's own nice value changes, the process's does not.
import { getPriority } from "node:os";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";

// A worker thread cannot load .ts: the compiled module, as the map pool uses it.
const compiled = new URL("../../dist/server/thread-priority.js", import.meta.url).href;

describe.runIf(process.platform === "linux")("lowerThreadPriority", () => {
  it("gives the calling thread nice 5 and leaves the rest of the process as it was", async () => {
    const before = getPriority(process.pid);
    const source = `
      const { parentPort } = require("node:worker_threads");
      const { readlinkSync } = require("node:fs");
      const { getPriority } = require("node:os");
      import(${JSON.stringify(compiled)}).then(({ lowerThreadPriority }) => {
        const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
        const before = getPriority(tid);
        const lowered = lowerThreadPriority();
        parentPort.postMessage({ lowered, before, after: getPriority(tid) });
      });
    `;
    const worker = new Worker(source, { eval: true });
    const got = await new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    await worker.terminate();
    expect(got).toEqual({ lowered: true, before, after: Math.max(before, 5) });
    expect(getPriority(process.pid)).toBe(before);
  });
});
