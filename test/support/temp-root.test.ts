import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import setup, { KEEP_ENV } from "./temp-root.js";

const before = process.env.TMPDIR;
afterEach(() => {
  if (before === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = before;
  delete process.env[KEEP_ENV];
});

describe("the suite's temporary root", () => {
  it("is one folder for both projects, removed with what is left in it when the last one ends", () => {
    delete process.env[KEEP_ENV];
    const outer = tmpdir();
    const first = setup();
    const dir = tmpdir();
    expect(dirname(dir)).toBe(outer);
    expect(dir).toMatch(/crossmap-tests-/);
    expect(statSync(dir).mode & 0o7777).toBe(0o1777);
    const second = setup();
    expect(tmpdir()).toBe(dir);
    // What a test killed before its cleanup leaves behind.
    mkdirSync(join(dir, "crossmap-crash-abc"));
    writeFileSync(join(dir, "crossmap-crash-abc", "journal.mdb"), "x");
    second();
    expect(existsSync(dir)).toBe(true);
    first();
    expect(existsSync(dir)).toBe(false);
    expect(tmpdir()).toBe(outer);
  });

  it(`is kept with ${KEEP_ENV}=1`, () => {
    const end = setup();
    const dir = tmpdir();
    process.env[KEEP_ENV] = "1";
    end();
    expect(existsSync(dir)).toBe(true);
    rmSync(dir, { recursive: true });
  });
});
