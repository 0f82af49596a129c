import { spawn } from "node:child_process";
import {
  closeSync,
  ftruncateSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mapWorkerThreads, PRESTART_MIN_BYTES } from "../../src/cli/map-workers.js";
import { repoRoot, runCli } from "./run-cli.js";

const crossmap = "test/fixtures/map/omop-to-fhir.yaml";

describe("crossmap map --workers 2", () => {
  it("keeps input order on a 100k-line file, with issues at the right lines", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-workers-"));
    const input = join(dir, "person.ndjson");
    const genders = [8507, 8532, 8551, 8570];
    const lines: string[] = [];
    for (let i = 1; i <= 100_000; i++) {
      // Uneven line lengths, so that batches hold different numbers of records and finish out of turn.
      const pad = "x".repeat((i * 7919) % 300);
      const gender = i % 25_000 === 0 ? '"bad"' : String(genders[i % 4]);
      lines.push(`{"person_id": ${i}, "gender_concept_id": ${gender}, "person_source_value": "${pad}"}`);
    }
    writeFileSync(input, lines.join("\n") + "\n");
    const r = await runCli([
      "map",
      "--crossmap",
      crossmap,
      "--workers",
      "2",
      "--errors",
      join(dir, "e.ndjson"),
      input,
    ]);
    expect(r.code).toBe(1);
    const ids = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l).id as string);
    expect(ids).toHaveLength(100_000);
    expect(ids.every((id, i) => id === String(i + 1))).toBe(true);
    const issueLines = readFileSync(join(dir, "e.ndjson"), "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => [JSON.parse(l).line, JSON.parse(l).code]);
    // The test crossmap does not read person_source_value: named once, at line 1, though both workers
    // saw it; then the bad genders, in input order.
    expect(issueLines).toEqual([
      [1, "unread_column"],
      [25_000, "unmapped_value"],
      [50_000, "unmapped_value"],
      [75_000, "unmapped_value"],
      [100_000, "unmapped_value"],
    ]);
  });
});

describe("crossmap map --workers 2: batch boundaries", () => {
  it("maps bytes cut at any boundary exactly as --workers 1 does, with the same line numbers", async () => {
    // Workers get raw bytes cut at newlines every ~64 KB. Lines of multi-byte characters with lengths
    // that drift against the cut points put 2-, 3- and 4-byte characters at every offset of a batch
    // boundary; CRLF, blank lines, a BOM, malformed lines, big integers and a last line with no newline
    // check that nothing is lost or shifted between batches.
    const dir = mkdtempSync(join(tmpdir(), "crossmap-bounds-"));
    const input = join(dir, "condition_occurrence.ndjson");
    const chars = ["é", "漢", "😀", "a"];
    const parts: string[] = ["\uFEFF"];
    const expected: { id: string; code: string }[] = [];
    const malformed: number[] = [];
    for (let line = 1; line <= 6000; line++) {
      const end = line % 3 === 0 ? "\r\n" : "\n";
      if (line % 97 === 0) {
        parts.push(end); // a blank line, counted
        continue;
      }
      if (line % 1999 === 0) {
        parts.push(`{"condition_occurrence_id": ${line},${end}`);
        malformed.push(line);
        continue;
      }
      const code = chars[line % 4]!.repeat(1 + ((line * 37) % 61)) + chars[(line + 1) % 4];
      const id = line % 500 === 0 ? `17413510329302${String(line).padStart(5, "0")}` : String(line);
      parts.push(`{"condition_occurrence_id": ${id}, "person_id": 7, "condition_source_value": "${code}"}`);
      parts.push(line === 6000 ? "" : end);
      expected.push({ id, code });
    }
    writeFileSync(input, parts.join(""));
    const run = (workers: string) =>
      runCli([
        "map",
        "-q",
        "--crossmap",
        crossmap,
        "--workers",
        workers,
        "--errors",
        join(dir, `e${workers}.ndjson`),
        input,
      ]);
    const [one, two] = [await run("1"), await run("2")];
    expect(two.code).toBe(1);
    expect(two.stdout).toBe(one.stdout);
    const got = two.stdout
      .trimEnd()
      .split("\n")
      .map((l) => {
        // Ids beyond 2^53 keep every digit: read them from the text, not through JSON.parse.
        const id = /"id":"(\d+)"/.exec(l)![1]!;
        return { id, code: JSON.parse(l).code.coding[0].code as string };
      });
    expect(got).toEqual(expected);
    const issues = readFileSync(join(dir, "e2.ndjson"), "utf8");
    expect(issues).toBe(readFileSync(join(dir, "e1.ndjson"), "utf8"));
    expect(
      issues
        .trimEnd()
        .split("\n")
        .map((l) => [JSON.parse(l).line, JSON.parse(l).code]),
    ).toEqual(malformed.map((line) => [line, "malformed_json"]));
  });
});

describe("crossmap map --transforms", () => {
  it("loads the custom module in every worker", async () => {
    const input = Array.from(
      { length: 5000 },
      (_, i) => `{"person_id": ${i}, "person_source_value": "ab${i}"}`,
    );
    const r = await runCli(
      [
        "map",
        "-q",
        "--crossmap",
        "test/fixtures/map/person-upper.yaml",
        "--entity",
        "person",
        "--workers",
        "2",
      ].concat(["--transforms", "test/fixtures/map/upper-transforms.mjs"]),
      { stdin: input.join("\n") },
    );
    expect(r.code).toBe(0);
    const out = r.stdout.trimEnd().split("\n");
    expect(out).toHaveLength(5000);
    expect(out[4999]).toBe('{"id":"4999","identifier":[{"value":"AB4999"}]}');
  });

  it("without the module, the crossmap does not load: exit 2", async () => {
    const r = await runCli(["map", "--crossmap", "test/fixtures/map/person-upper.yaml"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown transform "upper"');
  });
});

describe("crossmap map when stdout goes away", () => {
  it("stops with exit 1 and says so (e.g. `| head -1`)", async () => {
    const lines = Array.from({ length: 200_000 }, (_, i) => `{"person_id": ${i}}`).join("\n");
    const args = ["bin/crossmap.js", "map", "--crossmap", crossmap, "--entity", "person"];
    const child = spawn(process.execPath, args, { cwd: repoRoot });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.stdin.on("error", () => {});
    child.stdin.end(lines);
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(1);
    expect(stderr).toBe("crossmap: cannot write the output: write EPIPE\n");
  });
});

const prestartDir = mkdtempSync(join(tmpdir(), "crossmap-prestart-"));
const big = join(prestartDir, "person.ndjson");
const small = join(prestartDir, "small.ndjson");
const fd = openSync(big, "w");
ftruncateSync(fd, PRESTART_MIN_BYTES); // sparse: no disk used
closeSync(fd);
writeFileSync(small, '{"person_id":1}\n');
afterAll(() => rmSync(prestartDir, { recursive: true, force: true }));

// Which runs start their workers early: large file inputs only, as many as --workers says.
describe("mapWorkerThreads", () => {
  it("starts N-1 workers early for a large input file, N from --workers or the cores", () => {
    expect(mapWorkerThreads(["--workers", "4", big])).toBe(3);
    expect(mapWorkerThreads(["--workers=3", "-o", "out.ndjson", big])).toBe(2);
    expect(mapWorkerThreads([big])).toBe(availableParallelism() - 1);
  });

  it("starts none for small inputs, stdin, --workers 1, a bad --workers value or help", () => {
    expect(mapWorkerThreads(["--workers", "4", small])).toBe(0);
    expect(mapWorkerThreads(["--workers", "4"])).toBe(0);
    expect(mapWorkerThreads(["--workers", "4", "-"])).toBe(0);
    expect(mapWorkerThreads(["--workers", "1", big])).toBe(0);
    expect(mapWorkerThreads(["--workers", "x", big])).toBe(0);
    expect(mapWorkerThreads(["--workers", "4", big, "--help"])).toBe(0);
  });
});
