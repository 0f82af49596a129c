import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LOCK_FILE, lockJournal } from "../../src/intake/journal-lock.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "crossmap-journal-lock-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A process that runs until killed; `listen` among its arguments, as a listener's command line has. */
async function otherProcess(args = ["listen"]) {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", ...args], { stdio: "ignore" });
  await new Promise((resolve) => child.once("spawn", resolve));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = () => {
    child.kill("SIGKILL");
    return exited;
  };
  return { pid: child.pid as number, stop };
}

describe("lockJournal", () => {
  it("holds the journal with this process's pid and host, and lets it go on release", () => {
    const release = lockJournal(dir);
    expect(readFileSync(join(dir, LOCK_FILE), "utf8")).toBe(`${process.pid}\n${hostname()}\n`);
    release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it("refuses a journal another running listener holds, naming it", async () => {
    const other = await otherProcess();
    try {
      writeFileSync(join(dir, LOCK_FILE), `${other.pid}\n${hostname()}\n`);
      expect(() => lockJournal(dir)).toThrow(
        `--journal ${dir} is in use by the listener with pid ${other.pid} on ${hostname()}: one listener per journal (stop it first, or give another --journal; if it is gone, remove ${join(dir, LOCK_FILE)})`,
      );
      expect(readFileSync(join(dir, LOCK_FILE), "utf8")).toBe(`${other.pid}\n${hostname()}\n`);
    } finally {
      await other.stop();
    }
  });

  it("takes over the lock of a listener that died (kill -9), and of a half-written file", async () => {
    const other = await otherProcess();
    writeFileSync(join(dir, LOCK_FILE), `${other.pid}\n${hostname()}\n`);
    await other.stop();
    lockJournal(dir)();
    writeFileSync(join(dir, LOCK_FILE), "");
    const release = lockJournal(dir);
    expect(readFileSync(join(dir, LOCK_FILE), "utf8")).toBe(`${process.pid}\n${hostname()}\n`);
    release();
  });

  it("takes over a lock whose pid another program holds now (pids are reused after a reboot)", async () => {
    const other = await otherProcess(["not-a-listener"]);
    try {
      writeFileSync(join(dir, LOCK_FILE), `${other.pid}\n${hostname()}\n`);
      const release = lockJournal(dir);
      expect(readFileSync(join(dir, LOCK_FILE), "utf8")).toBe(`${process.pid}\n${hostname()}\n`);
      release();
    } finally {
      await other.stop();
    }
  });

  it("refuses a lock held on another host, whose process it cannot see", () => {
    writeFileSync(join(dir, LOCK_FILE), "999999\nother-host\n");
    expect(() => lockJournal(dir)).toThrow("is in use by the listener with pid 999999 on other-host");
  });

  it("does not remove a lock another listener took after it", () => {
    const release = lockJournal(dir);
    writeFileSync(join(dir, LOCK_FILE), "12345\nother-host\n");
    release();
    expect(readFileSync(join(dir, LOCK_FILE), "utf8")).toBe("12345\nother-host\n");
  });
});
