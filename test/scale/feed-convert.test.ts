// One feed message to its output or its dead letter, and the MSH fields that key and name it.
import { describe, expect, it } from "vitest";
import { findBuiltinCrossmap } from "../../src/crossmap/catalog.js";
import { linkPlansMade } from "../../src/pipeline/hl7v2/link.js";
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

  it("plans a message structure's links once for the feed, not once per message", () => {
    const before = linkPlansMade();
    const a = convert(bytes(`${MSH}\rPID|1||9^^^FAC_A^MR||DOE^J\rPV1|1|I\r`), "hl7.in.FAC_A#7");
    const b = convert(bytes(`${MSH}\rPID|1||9^^^FAC_A^MR||DOE^J\rPV1|1|I\r`), "hl7.in.FAC_A#8");
    expect(linkPlansMade() - before).toBe(1);
    expect(b.outputs[0]?.payload).toBe(a.outputs[0]?.payload);
  });

  it("gives one Bundle per message with the message control id", () => {
    const r = convert(bytes(`${MSH}\rPID|1||9^^^FAC_A^MR||DOE^J\r`), "hl7.in.FAC_A#1");
    expect(r.dead).toBeUndefined();
    expect(r.outputs.map((o) => [o.sourceId, JSON.parse(o.payload).resourceType, o.issues])).toEqual([
      ["CTRL-9", "Bundle", []],
    ]);
  });

  it("gives the Bundle `map` writes, with its issues, when a field has a local code", () => {
    const r = convert(bytes(`${MSH}\rPID|1||9^^^FAC_A^MR||DOE^J|||||||||||Married\r`), "hl7.in.FAC_A#4");
    expect(r.dead).toBeUndefined();
    expect(r.outputs).toHaveLength(1);
    expect(
      JSON.parse(r.outputs[0]!.payload).entry.map(
        (e: { resource: { resourceType: string } }) => e.resource.resourceType,
      ),
    ).toEqual(["MessageHeader", "Patient"]);
    expect(r.outputs[0]!.issues).toEqual([
      {
        file: "hl7.in.FAC_A#4",
        message_index: 1,
        segment: 2,
        segment_type: "PID",
        field: "PID.16",
        target: "Patient.maritalStatus",
        code: "unmapped_value",
        severity: "error",
        message: '"Married" is not in the value map (A, D, M, S, W, C, G, P, ...)',
        value: "Married",
      },
    ]);
    // A resource left out (an OBX without OBX-3) is left out of the Bundle as in `map`, and said.
    const incomplete = convert(bytes(`${MSH}\rPID|1||9\rOBX|1|NM||||mg\r`), "hl7.in.FAC_A#3");
    expect(incomplete.dead).toBeUndefined();
    expect(incomplete.outputs[0]!.issues).toMatchObject([{ code: "missing_required", segment_type: "OBX" }]);
  });

  it("sends only what it cannot convert to the dead letters, with its issues", () => {
    const malformed = convert(bytes(`${MSH}\rPI|1\r`), "hl7.in.FAC_A#2");
    expect(malformed).toMatchObject({
      outputs: [],
      dead: {
        sourceId: "CTRL-9",
        issues: [{ file: "hl7.in.FAC_A#2", code: "malformed_message", severity: "error", segment: 2 }],
      },
    });
    expect(malformed.dead!.text).toBeUndefined();
    // Two messages in one: the good one is published, the malformed one alone is the dead letter.
    const two = convert(
      bytes(`${MSH}\rPID|1||9\r${MSH.replace("CTRL-9", "CTRL-10")}\rPI|1\r`),
      "hl7.in.FAC_A#5",
    );
    expect(two.outputs.map((o) => o.sourceId)).toEqual(["CTRL-9"]);
    expect(two.dead).toMatchObject({
      sourceId: "CTRL-10",
      issues: [{ code: "malformed_message" }],
      text: `${MSH.replace("CTRL-9", "CTRL-10")}\rPI|1\r`,
    });
    expect(convert(new Uint8Array([0x4d, 0xff]), "x")).toMatchObject({
      outputs: [],
      dead: { issues: [{ code: "invalid_utf8" }] },
    });
    expect(convert(bytes("\r\n"), "x")).toMatchObject({
      outputs: [],
      dead: { issues: [{ code: "empty_message" }] },
    });
  });
});

describe("recordConverter", () => {
  const plan = composePlan([crossmapOf("omop_cdm_v5.4", "fhir_r4", [personToPatient()])]);
  const convert = recordConverter(createBatchMapper(plan, { onError: "skip", perEntity: false }), "person");

  it("maps NDJSON records; a record `map` writes with an issue is published with it", () => {
    expect(convert(bytes('{"person_id": 1, "gender_concept_id": 8507}\n'), "omop.person.a#1")).toEqual({
      outputs: [
        {
          payload: '{"resourceType":"Patient","id":"1","gender":"male"}\n',
          sourceId: undefined,
          issues: [],
        },
      ],
    });
    const local = convert(bytes('{"person_id": 2, "gender_concept_id": 1}'), "omop.person.a#2");
    expect(local.dead).toBeUndefined();
    expect(local.outputs).toMatchObject([
      {
        payload: '{"resourceType":"Patient","id":"2"}\n',
        issues: [{ file: "omop.person.a#2", line: 1, code: "unmapped_value", severity: "error", value: 1 }],
      },
    ]);
  });

  it("sends the records `map` would not write to the dead letters, and only those lines", () => {
    expect(convert(bytes("{"), "omop.person.a#3")).toMatchObject({
      outputs: [],
      dead: { issues: [{ code: "malformed_json" }] },
    });
    const mixed = convert(bytes('{"person_id": 1}\n{\n{"person_id": 3}\n'), "omop.person.a#4");
    expect(mixed.outputs.map((o) => o.payload)).toEqual([
      '{"resourceType":"Patient","id":"1"}\n{"resourceType":"Patient","id":"3"}\n',
    ]);
    expect(mixed.dead).toMatchObject({ issues: [{ line: 2, code: "malformed_json" }], text: "{" });
  });
});
