// One feed message to its output or its dead letter, and the MSH fields that key and name it.
import { describe, expect, it } from "vitest";
import { findBuiltinCrossmap } from "../../src/crossmap/catalog.js";
import { loadPlan } from "../../src/pipeline/load-plan.js";
import { composePlan } from "../../src/pipeline/plan.js";
import { createBatchMapper } from "../../src/pipeline/stage.js";
import { er7Converter, mshComponent, mshField, recordConverter } from "../../src/scale/feed-convert.js";
import { keyFunction } from "../../src/scale/publish.js";
import { crossmapOf, personToPatient } from "../pipeline/fake-crossmap.js";

const MSH = "MSH|^~\\&|LAB|FAC_A^1.2.3^ISO|||20240101||ADT^A01|CTRL-9|P|2.5.1";
const bytes = (s: string) => new TextEncoder().encode(s);

describe("MSH fields", () => {
  it("counts MSH-1 as the field separator and reads components with MSH-2's separator", () => {
    expect(mshField(MSH, 1)).toBe("|");
    expect(mshField(MSH, 2)).toBe("^~\\&");
    expect(mshField(MSH, 10)).toBe("CTRL-9");
    expect(mshComponent(MSH, 4)).toBe("FAC_A");
    expect(mshField("PID|1", 3)).toBe("");
    expect(keyFunction("hl7v2", undefined)(`${MSH}\rPID|1\r`)).toBe("FAC_A");
    expect(keyFunction("hl7v2", "MSH.3")(`${MSH}\r`)).toBe("LAB");
    expect(() => keyFunction("hl7v2", "PID.3")).toThrow("--key for HL7 v2 must be MSH.<field>, like MSH.4");
    expect(keyFunction("ndjson", "site.id")('{"site": {"id": 7}}')).toBe("7");
    expect(keyFunction("ndjson", undefined)("{}")).toBe("default");
  });
});

describe("er7Converter", async () => {
  const plan = await loadPlan({ crossmaps: [findBuiltinCrossmap("hl7v2_2.5.1", "fhir_r4")!.path] });
  const convert = er7Converter(plan, "collection");

  it("gives one Bundle per message with the message control id", () => {
    const r = convert(bytes(`${MSH}\rPID|1||9^^^FAC_A^MR||DOE^J\r`), "hl7.in.FAC_A#1");
    expect(r.kind).toBe("out");
    if (r.kind !== "out") return;
    expect(r.outputs.map((o) => [o.sourceId, JSON.parse(o.payload).resourceType, o.warnings])).toEqual([
      ["CTRL-9", "Bundle", 0],
    ]);
  });

  it("sends a malformed message, or one with an error issue, to the dead letters with its issues", () => {
    const malformed = convert(bytes(`${MSH}\rPI|1\r`), "hl7.in.FAC_A#2");
    expect(malformed).toMatchObject({
      kind: "dead",
      sourceId: "CTRL-9",
      issues: [{ file: "hl7.in.FAC_A#2", code: "malformed_message", severity: "error", segment: 2 }],
    });
    const incomplete = convert(bytes(`${MSH}\rPID|1||9\rOBX|1|NM||||mg\r`), "hl7.in.FAC_A#3");
    expect(incomplete).toMatchObject({
      kind: "dead",
      issues: [{ code: "missing_required", segment_type: "OBX" }],
    });
    expect(convert(new Uint8Array([0x4d, 0xff]), "x")).toMatchObject({
      kind: "dead",
      issues: [{ code: "invalid_utf8" }],
    });
    expect(convert(bytes("\r\n"), "x")).toMatchObject({ kind: "dead", issues: [{ code: "empty_message" }] });
  });
});

describe("recordConverter", () => {
  const plan = composePlan([crossmapOf("omop_cdm_v5.4", "fhir_r4", [personToPatient()])]);
  const convert = recordConverter(createBatchMapper(plan, { onError: "skip", perEntity: false }), "person");

  it("maps NDJSON records, and sends a record with an error issue to the dead letters", () => {
    expect(convert(bytes('{"person_id": 1, "gender_concept_id": 8507}\n'), "omop.person.a#1")).toEqual({
      kind: "out",
      outputs: [
        {
          payload: '{"resourceType":"Patient","id":"1","gender":"male"}\n',
          sourceId: undefined,
          warnings: 0,
        },
      ],
    });
    expect(convert(bytes('{"person_id": 2, "gender_concept_id": 1}'), "omop.person.a#2")).toMatchObject({
      kind: "dead",
      issues: [{ file: "omop.person.a#2", line: 1, code: "unmapped_value" }],
    });
    expect(convert(bytes("{"), "omop.person.a#3")).toMatchObject({
      kind: "dead",
      issues: [{ code: "malformed_json" }],
    });
  });
});
