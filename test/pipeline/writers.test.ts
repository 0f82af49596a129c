import { spawn, spawnSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dirSink, fileSink, publishedByRename } from "../../src/pipeline/writers.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "crossmap-writers-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("publishedByRename", () => {
  it("renames a temporary over a regular file or a path that does not exist yet", async () => {
    writeFileSync(join(dir, "old.ndjson"), "x\n");
    expect(await publishedByRename(join(dir, "old.ndjson"))).toBe(true);
    expect(await publishedByRename(join(dir, "new.ndjson"))).toBe(true);
  });

  it("writes a device, a directory or a symbolic link in place", async () => {
    expect(await publishedByRename("/dev/null")).toBe(false);
    mkdirSync(join(dir, "sub"));
    expect(await publishedByRename(join(dir, "sub"))).toBe(false);
    writeFileSync(join(dir, "target.ndjson"), "");
    symlinkSync(join(dir, "target.ndjson"), join(dir, "link.ndjson"));
    expect(await publishedByRename(join(dir, "link.ndjson"))).toBe(false);
  });
});

describe("fileSink", () => {
  it("removes the temporaries a killed run left beside the file, not a running process's", async () => {
    const gone = spawnSync(process.execPath, ["-e", "0"]).pid as number;
    const stale = join(dir, `.out.ndjson.${gone}.tmp`);
    const running = join(dir, `.out.ndjson.${process.ppid}.tmp`);
    const other = join(dir, `.other.ndjson.${gone}.tmp`);
    for (const f of [stale, running, other]) writeFileSync(f, "partial");
    const sink = await fileSink(join(dir, "out.ndjson"));
    await sink.write("", '{"a":1}\n');
    await sink.commit();
    expect(readdirSync(dir).sort()).toEqual(
      [`.other.ndjson.${gone}.tmp`, `.out.ndjson.${process.ppid}.tmp`, "out.ndjson"].sort(),
    );
  });

  it("publishes a regular file when the run commits, and leaves no temporary", async () => {
    const path = join(dir, "out.ndjson");
    const sink = await fileSink(path);
    await sink.write("", '{"a":1}\n');
    expect(readdirSync(dir)).not.toContain("out.ndjson");
    await sink.commit();
    expect(readFileSync(path, "utf8")).toBe('{"a":1}\n');
    expect(readdirSync(dir)).toEqual(["out.ndjson"]);
  });

  it("writes through a symbolic link, which stays a link", async () => {
    const target = join(dir, "target.ndjson");
    const link = join(dir, "link.ndjson");
    writeFileSync(target, "old\n");
    symlinkSync(target, link);
    const sink = await fileSink(link);
    await sink.write("", '{"a":1}\n');
    await sink.write("", '{"a":2}\n');
    await sink.commit();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe('{"a":1}\n{"a":2}\n');
    expect(readdirSync(dir).sort()).toEqual(["link.ndjson", "target.ndjson"]);
  });

  it("writes into a named pipe as a reader takes it, and the pipe stays a pipe", async (ctx) => {
    const fifo = join(dir, "out.pipe");
    if (spawnSync("mkfifo", [fifo]).status !== 0) ctx.skip("mkfifo (coreutils) is not available");
    // The reader is another process: a pipe replaced by a file would leave its open() waiting forever.
    const reader = spawn("cat", [fifo], { stdio: ["ignore", "pipe", "ignore"] });
    let text = "";
    reader.stdout.on("data", (d) => {
      text += d;
    });
    const done = new Promise((resolve) => reader.on("close", resolve));
    const sink = await fileSink(fifo);
    await sink.write("", '{"a":1}\n');
    await sink.commit();
    await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 5000))]);
    reader.kill();
    expect(text).toBe('{"a":1}\n');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(dir)).toEqual(["out.pipe"]);
  });

  it("says which path it cannot write", async () => {
    mkdirSync(join(dir, "sub"));
    await expect(fileSink(join(dir, "sub"))).rejects.toThrow(`cannot write ${join(dir, "sub")}`);
  });
});

describe("dirSink", () => {
  it("publishes the files of the tables read even when empty, so an earlier run's file of them is replaced", async () => {
    writeFileSync(join(dir, "Patient.ndjson"), '{"old":1}\n');
    writeFileSync(join(dir, "Condition.ndjson"), '{"other table":1}\n');
    const sink = await dirSink(dir, ["Patient", "Encounter"]);
    await sink.write("Encounter", '{"id":"1"}\n');
    await sink.commit();
    expect(readFileSync(join(dir, "Patient.ndjson"), "utf8")).toBe("");
    expect(readFileSync(join(dir, "Encounter.ndjson"), "utf8")).toBe('{"id":"1"}\n');
    // A table this run did not read keeps its file (one run per table into one folder).
    expect(readFileSync(join(dir, "Condition.ndjson"), "utf8")).toBe('{"other table":1}\n');
  });

  it("publishes nothing when the run is aborted", async () => {
    const sink = await dirSink(dir, ["Patient"]);
    await sink.abort();
    expect(readdirSync(dir)).toEqual([]);
  });
});
