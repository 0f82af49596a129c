// The values the built-in HL7 v2 -> FHIR crossmap writes, against Microsoft FHIR-Converter's expected Bundles
// (test/fixtures/hl7v2/ms-fhir-converter-expected, MIT) where both write the same element: the table of
// docs/hl7v2.md between the `values` markers must be exactly what scripts/hl7v2-compare-microsoft.mjs makes of
// the corpus (regenerate it with `npm run build && node scripts/hl7v2-compare-microsoft.mjs --write`), and
// every differing element has a reason.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module shared with the script
import * as compare from "../../../scripts/hl7v2-compare-microsoft.mjs";
import { findBuiltinCrossmap } from "../../../src/crossmap/catalog.js";
import { loadCrossmapFile } from "../../../src/crossmap/load.js";
import { convertText } from "../../../src/pipeline/hl7v2/index.js";
import { FIXTURES_DIR } from "../../support/omop.js";

const { compareBundles, pair, valuesTable, withValuesTable } = compare as {
  compareBundles: (message: string, ours: unknown, theirs: unknown) => unknown[];
  pair: (type: string, ours: unknown[], theirs: unknown[]) => unknown[];
  valuesTable: (rows: unknown[]) => string;
  withValuesTable: (markdown: string, table: string) => string;
};

const SAMPLES = join(FIXTURES_DIR, "hl7v2", "samples");
const EXPECTED = join(FIXTURES_DIR, "hl7v2", "ms-fhir-converter-expected");
const DOC = readFileSync(new URL("../../../docs/hl7v2.md", import.meta.url), "utf8");

interface Row {
  message: string;
  type: string;
  path: string;
  agree: boolean;
}
const rows: Row[] = [];

beforeAll(async () => {
  const cm = await loadCrossmapFile(findBuiltinCrossmap("hl7v2_2.5.1", "fhir_r4")?.path ?? "");
  for (const f of readdirSync(EXPECTED)
    .filter((n) => n.endsWith("-expected.json"))
    .sort()) {
    const name = f.replace(/-expected\.json$/, ".hl7");
    const theirs = JSON.parse(readFileSync(join(EXPECTED, f), "utf8"));
    for (const r of convertText(readFileSync(join(SAMPLES, name), "utf8"), cm, { file: name })) {
      if (!r.ok) throw new Error(`${name} is malformed`);
      rows.push(...(compareBundles(name, r.bundle, theirs) as Row[]));
    }
  }
});

describe("values against Microsoft FHIR-Converter", () => {
  it("compare every sample that has an expected Bundle", () => {
    expect(new Set(rows.map((r) => r.message)).size).toBe(21);
  });

  it("are the table of docs/hl7v2.md, exactly", () => {
    const table = valuesTable(rows) as string;
    expect(withValuesTable(DOC, table)).toBe(DOC);
  });

  it("leave no differing element without a reason", () => {
    expect(valuesTable(rows)).not.toContain("unexplained");
  });

  it("undo Microsoft's offset shift: the same instant at another offset agrees", () => {
    const ours = {
      entry: [
        {
          resource: {
            resourceType: "Observation",
            code: { coding: [{ code: "x" }] },
            effectiveDateTime: "2014-10-06T08:30:00+07:00",
          },
        },
      ],
    };
    const theirs = {
      entry: [
        {
          resource: {
            resourceType: "Observation",
            code: { coding: [{ code: "x" }] },
            effectiveDateTime: "2014-10-06T01:30:00Z",
          },
        },
      ],
    };
    const out = compareBundles("m", ours, theirs) as (Row & { shifted: boolean })[];
    expect(out.find((r) => r.path === "effectiveDateTime")).toMatchObject({ agree: true, shifted: true });
  });

  it("pair resources by identifier and code, never by id, and Microsoft's duplicates once", () => {
    const a = { resourceType: "Patient", id: "1", identifier: [{ value: "A" }], gender: "male" };
    const b = { resourceType: "Patient", id: "2", identifier: [{ value: "B" }], gender: "female" };
    const pairs = pair(
      "Patient",
      [a, b],
      [
        { ...b, id: "x" },
        { ...b, id: "y" },
        { ...a, id: "1" },
      ],
    ) as { r: { id: string } }[][];
    expect(pairs.map(([x, y]) => [x?.r.id, y?.r.id])).toEqual([
      ["1", "1"],
      ["2", "x"],
    ]);
  });
});
