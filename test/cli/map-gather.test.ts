// `crossmap map` with a crossmap that gathers: entries of one file go into compositions built from another,
// whatever the order of files and lines, with worker threads or without, in memory or spilled; and
// `--gather contiguous` for input grouped by key. The crossmap and rows are those of test/golden/lang-openehr-gather.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCrossmap } from "../../src/crossmap/load.js";
import { Gatherer } from "../../src/pipeline/gatherer.js";
import type { HeldRecord, RunIssue } from "../../src/pipeline/types.js";
import { repoRoot, runCli } from "./run-cli.js";

const golden = join(repoRoot, "test", "golden", "lang-openehr-gather");
const crossmap = join(golden, "crossmap.yaml");
const lines = readFileSync(join(golden, "input.ndjson"), "utf8")
  .trimEnd()
  .split("\n")
  .map((l) => JSON.parse(l));
const expected = JSON.parse(
  readFileSync(join(golden, "expected.ndjson"), "utf8").trimEnd().split("\n").at(-1) as string,
) as {
  gathered: { value: unknown }[];
};

/** The golden rows as two NDJSON files, one per table: conditions first, then visits. */
function inputFiles(): { dir: string; files: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "crossmap-gather-"));
  const of = (entity: string) =>
    lines
      .filter((l) => l.entity === entity)
      .map((l) => `${JSON.stringify(l.record)}\n`)
      .join("");
  writeFileSync(join(dir, "condition_occurrence.ndjson"), of("condition_occurrence"));
  writeFileSync(join(dir, "visit_occurrence.ndjson"), of("visit_occurrence"));
  return { dir, files: [join(dir, "condition_occurrence.ndjson"), join(dir, "visit_occurrence.ndjson")] };
}

describe("crossmap map with gathering", () => {
  for (const workers of ["1", "2"]) {
    it(`gathers entries from one file into compositions from another, reports the orphan (--workers ${workers})`, async () => {
      const { dir, files } = inputFiles();
      const r = await runCli([
        "map",
        "-q",
        "--crossmap",
        crossmap,
        "--workers",
        workers,
        "--errors",
        join(dir, "errors.ndjson"),
        "--summary",
        join(dir, "summary.json"),
        ...files,
      ]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(1);
      const out = r.stdout
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      // In order of the compositions' first appearance: the day composition comes from the conditions file,
      // which is read before the visits.
      const byKind = (o: { archetype_node_id: string }) =>
        o.archetype_node_id.replace(/^.*COMPOSITION\./, "");
      expect(out.map(byKind)).toEqual(["event_summary.v0", "encounter.v1", "encounter.v1"]);
      expect(out.slice(1)).toEqual(expected.gathered.slice(0, 2).map((g) => g.value));
      const errors = readFileSync(join(dir, "errors.ndjson"), "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      // The test crossmap reads a few columns of each file: the others are named once per file (their
      // exact wording is tested in test/pipeline/unread.test.ts); the gathering's issue follows.
      const unread = errors.filter((e) => e.code === "unread_column");
      expect(unread.map((e) => [e.file, e.line, e.entity]).sort()).toEqual(
        [
          [files[0], 1, "condition_occurrence"],
          [files[1], 1, "visit_occurrence"],
        ].sort(),
      );
      expect(errors.filter((e) => e.code !== "unread_column")).toEqual([
        {
          file: files[0],
          line: 6,
          entity: "condition_occurrence",
          code: "orphan_record",
          severity: "error",
          message:
            'condition_occurrence.problem was to be gathered into visit_occurrence.encounter with key "999999", which no record of the run produced; it was not written',
        },
      ]);
      const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
      expect(summary).toMatchObject({
        records_in: 8,
        records_out: 3,
        errors: 1,
        warnings: 2,
        issues_by_code: { orphan_record: 1, unread_column: 2 },
      });
    });
  }

  it("with --gather contiguous, writes each group when the input moves to the next key", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-gather-"));
    const map = `source: fhir_r4
target: openehr_1.0.4
entity_map:
  Encounter: {target: COMPOSITION, key: id}
  Observation: {target: OBSERVATION, into: {parent: COMPOSITION, key: encounter.reference, at: "content[+]"}}
field_map:
  Encounter.id: {target: COMPOSITION.uid}
  Observation.id: {target: OBSERVATION.uid}
`;
    writeFileSync(join(dir, "map.yaml"), map);
    const rows = [
      { resourceType: "Encounter", id: "e1" },
      { resourceType: "Observation", id: "o1", encounter: { reference: "Encounter/e1" } },
      { resourceType: "Observation", id: "o2", encounter: { reference: "urn:uuid:e1" } },
      { resourceType: "Encounter", id: "e2" },
      { resourceType: "Observation", id: "o3", encounter: { reference: "Encounter/e2" } },
      // e1's group is over: in contiguous mode this one is an orphan; gathering the whole run places it
      { resourceType: "Observation", id: "o4", encounter: { reference: "Encounter/e1" } },
    ];
    writeFileSync(join(dir, "in.ndjson"), rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
    const run = (...extra: string[]) =>
      runCli([
        "map",
        "-q",
        "--crossmap",
        join(dir, "map.yaml"),
        "--workers",
        "1",
        ...extra,
        join(dir, "in.ndjson"),
      ]);
    const contiguous = await run("--gather", "contiguous");
    expect(contiguous.stdout).toBe(
      '{"uid":"e1","content":[{"uid":"o1"},{"uid":"o2"}]}\n{"uid":"e2","content":[{"uid":"o3"}]}\n',
    );
    expect(contiguous.stderr).toContain(`${join(dir, "in.ndjson")}:6: error orphan_record:`);
    const whole = await run();
    expect(whole.stdout).toBe(
      '{"uid":"e1","content":[{"uid":"o1"},{"uid":"o2"},{"uid":"o4"}]}\n{"uid":"e2","content":[{"uid":"o3"}]}\n',
    );
    expect(whole.code).toBe(0);
  });
});

describe("the run's gatherer", () => {
  const cm = parseCrossmap(readFileSync(crossmap, "utf8"));
  /** The golden lines as the stage holds them. */
  const held: HeldRecord[] = lines.flatMap((l, i) =>
    (cm.mapper(l.entity).mapAll?.(l.record, i + 1).outputs ?? []).map((o) => {
      const h: HeldRecord = {
        output: o.output,
        entity: o.entity,
        json: JSON.stringify(o.value),
        place: { file: "in", line: i + 1 },
      };
      if (o.key !== undefined) h.key = o.key;
      if (o.into !== undefined) h.into = o.into;
      return h;
    }),
  );
  const run = async (memoryBytes: number) => {
    const written: string[] = [];
    const issues: RunIssue[] = [];
    const g = new Gatherer({
      plan: cm.gatherPlan,
      mode: "run",
      memoryBytes,
      perEntity: false,
      write: async (_e, text) => {
        written.push(text);
      },
      issue: async (i) => {
        issues.push(i);
      },
    });
    await g.add(held.slice(0, 4));
    await g.add(held.slice(4));
    return { counts: await g.finish(), written, issues };
  };
  it("spills to partition files past its memory budget and gathers the same records", async () => {
    const inMemory = await run(1 << 30);
    const spilled = await run(100);
    expect(inMemory.counts).toEqual({ written: 3, orphans: 1, spilledPartitions: 0 });
    expect(spilled.counts.written).toBe(3);
    expect(spilled.counts.orphans).toBe(1);
    expect(spilled.counts.spilledPartitions).toBeGreaterThan(0);
    // Partition by partition, so the order may differ; the records may not.
    expect([...spilled.written].sort()).toEqual([...inMemory.written].sort());
    expect(spilled.issues).toEqual(inMemory.issues);
  });
});
