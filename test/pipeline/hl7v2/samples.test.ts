// The 22 real ER7 messages of test/fixtures/hl7v2/samples (microsoft/FHIR-Converter, MIT) through the built-in
// HL7 v2.5.1 -> FHIR R4 crossmap: read without a crash, valid FHIR, references inside each Bundle.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { findBuiltinCrossmap } from "../../../src/crossmap/catalog.js";
import type { Crossmap } from "../../../src/crossmap/crossmap.js";
import { loadCrossmapFile } from "../../../src/crossmap/load.js";
import { type ConvertResult, convertText, Hl7v2Summary } from "../../../src/pipeline/hl7v2/index.js";
import { fhirProblems } from "../../support/fhir.js";
import { FIXTURES_DIR } from "../../support/omop.js";

const DIR = join(FIXTURES_DIR, "hl7v2", "samples");
const files = readdirSync(DIR)
  .filter((f) => f.endsWith(".hl7"))
  .sort();
const ACCEPTANCE = /^(ADT|LAB-ORU|VXU)/;

type Entry = { fullUrl: string; resource: Record<string, unknown>; request?: unknown };

let crossmap: Crossmap;
const results = new Map<string, ConvertResult[]>();
beforeAll(async () => {
  const entry = findBuiltinCrossmap("hl7v2_2.5.1", "fhir_r4");
  crossmap = await loadCrossmapFile(entry?.path ?? "");
  for (const f of files)
    results.set(f, [...convertText(readFileSync(join(DIR, f), "utf8"), crossmap, { file: f })]);
});

const entries = (r: ConvertResult): Entry[] => (r.ok ? ((r.bundle.entry as Entry[] | undefined) ?? []) : []);
const references = (x: unknown): string[] =>
  JSON.stringify(x)
    .match(/"reference":"[^"]*"/g)
    ?.map((s) => s.slice(13, -1)) ?? [];

describe("the HL7 v2 samples", () => {
  it("are all read, one Bundle per message, none malformed", () => {
    expect(files.length).toBe(22);
    for (const [f, rs] of results) {
      expect(rs.length, f).toBe(1);
      expect(rs[0]?.ok, f).toBe(true);
    }
  });

  it("give ADT, ORU and VXU resources that pass the FHIR R4 validator and JSON schema", () => {
    let checked = 0;
    for (const [f, rs] of results) {
      if (!ACCEPTANCE.test(f)) continue;
      for (const e of rs.flatMap(entries)) {
        expect(fhirProblems(e.resource), `${f} ${e.resource.resourceType}`).toEqual([]);
        checked++;
      }
    }
    expect(checked).toBe(222);
  });

  it("give every resource of every message (not only ADT/ORU/VXU) to the validators without a problem", () => {
    for (const [f, rs] of results) {
      for (const e of rs.flatMap(entries)) expect(fhirProblems(e.resource), f).toEqual([]);
    }
  });

  it("resolve every reference inside its own Bundle; fullUrls are urn:uuid:<id>", () => {
    for (const [f, rs] of results) {
      for (const r of rs) {
        const es = entries(r);
        const urls = new Set(es.map((e) => e.fullUrl));
        for (const e of es) expect(e.fullUrl, f).toBe(`urn:uuid:${e.resource.id}`);
        for (const ref of references(es.map((e) => e.resource)))
          expect(urls.has(ref), `${f} ${ref}`).toBe(true);
      }
    }
  });

  it("give the same ids on every run", () => {
    const f = "VXU-V04-02.hl7";
    const again = [...convertText(readFileSync(join(DIR, f), "utf8"), crossmap, { file: f })];
    expect(JSON.stringify(again.map((r) => (r.ok ? r.bundle : r)))).toBe(
      JSON.stringify(results.get(f)?.map((r) => (r.ok ? r.bundle : r))),
    );
  });

  it("link an ORU's DiagnosticReports to their Observations and Specimen and keep the sender's offsets", () => {
    const es = entries(results.get("LAB-ORU-2.hl7")?.[0] as ConvertResult);
    expect(es.map((e) => e.resource.resourceType)).toEqual([
      "MessageHeader",
      "Patient",
      "Account",
      "DiagnosticReport",
      "ServiceRequest",
      ...Array(5).fill("Observation"),
      "Specimen",
      "DiagnosticReport",
      "ServiceRequest",
      ...Array(5).fill("Observation"),
      "Specimen",
    ]);
    const report = es[3]?.resource as Record<string, unknown>;
    expect(report.result).toEqual(es.slice(5, 10).map((e) => ({ reference: e.fullUrl })));
    expect(report.specimen).toEqual([{ reference: es[10]?.fullUrl }]);
    expect(report.basedOn).toMatchObject([{ reference: es[4]?.fullUrl }]);
    // This sender writes the report time in OBR-23 and "F" in OBR-26, one field late: nothing is guessed.
    expect(report).toMatchObject({
      status: "unknown",
      identifier: [{ value: "855238581" }, { value: "890775544" }],
    });
    expect(report.issued).toBeUndefined();
    expect(es[6]?.resource).toMatchObject({
      status: "final",
      code: {
        coding: [{ system: "http://loinc.org", code: "23761-0", display: "NEUTROPHILS/100 LEUKOCYTES" }],
      },
      subject: { reference: es[1]?.fullUrl },
      valueQuantity: { value: 72, unit: "%" },
      interpretation: [
        {
          coding: [
            { system: "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation", code: "N" },
          ],
        },
      ],
      effectiveDateTime: "2014-10-06T08:30:00+07:00",
    });
  });

  it("count every segment type no entity maps, and the one resource left out for a missing required field", () => {
    const summary = new Hl7v2Summary();
    for (const rs of results.values()) for (const r of rs) summary.add(r);
    const json = summary.toJSON();
    expect(json).toMatchObject({ messages: 22, bundles: 22, resources: 412, malformed_messages: [] });
    expect(json.incomplete_resources).toEqual([{ type: "OBX", position: "OUL-R22-01.hl7#1/18 OBX" }]);
    expect(json.unmapped_segments).toEqual({
      TQ1: 4,
      RXR: 1,
      CTI: 4,
      RGS: 3,
      RXC: 3,
      CDO: 1,
      CON: 1,
      CTD: 2,
    });
  });
});
