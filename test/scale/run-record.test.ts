// What makes a stopped run resumable: the same crossmaps, options, batch size and unchanged input files.
import { mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PlanSpec } from "../../src/pipeline/load-plan.js";
import { newRunId, RUN_ID, subjectToken } from "../../src/scale/names.js";
import { compiledKey, describeRun, planKey, resumeMismatch } from "../../src/scale/run-record.js";
import { version } from "../../src/version.js";

const dir = mkdtempSync(join(tmpdir(), "crossmap-run-record-"));
const crossmap = join(dir, "c.yaml");
writeFileSync(crossmap, "source: a\ntarget: b\n");
const input = join(dir, "person.ndjson");
writeFileSync(input, '{"person_id": 1}\n');

const describe1 = (
  stage = { onError: "skip" as const, perEntity: false },
  parameters?: Record<string, string>,
  decisions?: PlanSpec["decisions"],
) =>
  describeRun({
    run: "r1",
    spec: {
      crossmaps: [crossmap],
      ...(parameters ? { parameters } : {}),
      ...(decisions ? { decisions } : {}),
    },
    stage,
    inputs: [{ file: input, format: "ndjson", entity: "person", size: 17 }],
    batch: { bytes: 65536, records: 2000 },
  });

describe("run descriptor", () => {
  it("holds the crossmaps' text and hash, the stage options and the inputs", async () => {
    const d = await describe1();
    expect(d).toMatchObject({
      format: 1,
      run: "r1",
      crossmap_version: version,
      crossmaps: [{ file: crossmap, text: "source: a\ntarget: b\n" }],
      stage: { onError: "skip", perEntity: false },
      parameters: null,
      decisions: null,
      transforms: null,
      vocabulary: null,
      inputs: [{ file: input, format: "ndjson", entity: "person", size: 17 }],
    });
    expect(d.crossmaps[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(d.plan_key).toBe(planKey(compiledKey([d.crossmaps[0]!.sha256], null), d.stage));
  });

  it("says why a run cannot be resumed", async () => {
    const before = await describe1();
    expect(resumeMismatch(before, await describe1())).toBeUndefined();
    const differs =
      "its crossmaps, --param values, project decisions or output options (--on-error, --out-dir) differ from this command's";
    expect(resumeMismatch(before, await describe1({ onError: "skip", perEntity: true }))).toBe(differs);
    const withParam = await describe1(undefined, { site: "a" });
    expect(withParam.parameters).toEqual({ site: "a" });
    expect(resumeMismatch(withParam, await describe1(undefined, { site: "b" }))).toBe(differs);
    expect(resumeMismatch(withParam, await describe1(undefined, { site: "a" }))).toBeUndefined();
    // A project's decisions are compiled into the plan: other decisions, another plan.
    const decided = (conceptId: number): PlanSpec["decisions"] => ({
      entries: [
        {
          system: "LOCAL_LAB",
          code: "GLU",
          decision: { kind: "mapped", item: "i1", conceptId, conceptName: null, vocabularyId: "LOINC" },
        },
      ],
      unreviewed: "ignore",
    });
    const withDecisions = await describe1(undefined, undefined, decided(1));
    expect(withDecisions.decisions).toEqual(decided(1));
    expect(withDecisions.plan_key).not.toBe(before.plan_key);
    expect(resumeMismatch(withDecisions, await describe1(undefined, undefined, decided(2)))).toBe(differs);
    expect(resumeMismatch(withDecisions, await describe1(undefined, undefined, decided(1)))).toBeUndefined();
    expect(resumeMismatch(before, { ...before, batch: { bytes: 1, records: 2000 } })).toBe(
      "its batch size differs",
    );
    expect(resumeMismatch(before, { ...before, crossmap_version: "0.0.0" })).toBe(
      `it was started by crossmap ${version}, this is 0.0.0`,
    );
    utimesSync(input, new Date(), new Date(Date.now() + 5000));
    expect(resumeMismatch(before, await describe1())).toBe(`${input} changed since (or is read differently)`);
    expect(resumeMismatch(before, { ...before, inputs: [] })).toBe(`its inputs were ${input}`);
  });
});

describe("names", () => {
  it("makes run ids that are subject tokens, and subject tokens of any value", () => {
    const id = newRunId(new Date("2026-11-23T16:08:09.123Z"));
    expect(id).toMatch(/^20261123T160809-[0-9a-f]{6}$/);
    expect(RUN_ID.test(id)).toBe(true);
    expect(subjectToken("St. Mary's > ER*")).toBe("St__Mary's___ER_");
    expect(subjectToken("")).toBe("_");
  });
});
