// Values a sender writes that the built-in HL7 v2 -> FHIR crossmap once dropped or wrote invalid without a
// word (found from outside on messages the crossmap was not written against): each is now mapped or said.
import { beforeAll, describe, expect, it } from "vitest";
import { findBuiltinCrossmap } from "../../../src/crossmap/catalog.js";
import type { Crossmap } from "../../../src/crossmap/crossmap.js";
import { loadCrossmapFile } from "../../../src/crossmap/load.js";
import { convertText } from "../../../src/pipeline/hl7v2/index.js";

let cm: Crossmap;
beforeAll(async () => {
  cm = await loadCrossmapFile(findBuiltinCrossmap("hl7v2_2.5.1", "fhir_r4")?.path ?? "");
});

const MSH = "MSH|^~\\&|S|F|R|RF|20260301120000-0500||";
type Resource = Record<string, unknown> & { resourceType: string };

function convert(type: string, ...segments: string[]) {
  const [r] = [...convertText(`${MSH}${type}|C1|P|2.5.1\r${segments.join("\r")}\r`, cm, { file: "m.hl7" })];
  if (!r?.ok) throw new Error("malformed");
  const resources = (r.bundle as { entry: { resource: Resource }[] }).entry.map((e) => e.resource);
  const issues = r.issues.map((i) => [i.field, i.code, i.severity, i.message]);
  return { of: (t: string) => resources.filter((x) => x.resourceType === t), issues };
}

describe("OBX-5 values the Observation cannot hold", () => {
  it("writes a repeated OBX-5 as components, one per repetition with OBX-3 as its code (IG OBX[Observation-Component])", () => {
    const r = convert(
      "ORU^R01^ORU_R01",
      "PID|1||P1^^^F^MR||A^B",
      "OBR|1||F1|24331-1^Panel^LN",
      "OBX|1|NM|2345-7^Glucose^LN|1|101~102|mg/dL|||||F",
      "OBX|2|CWE|600-7^Culture^LN|1|E.COLI^E coli^L~KLEB^Klebsiella^L||||||F",
      "OBX|3|DTM|x1^Seen^L|1|20260301~2026030212||||||F",
      "OBX|4|ED|x2^Doc^L|1|^TEXT^^A^one~^TEXT^^A^two||||||F",
    );
    const [glucose, culture, seen, doc] = r.of("Observation");
    const code = (c: string, d: string) => ({
      coding: [{ system: "http://loinc.org", code: c, display: d }],
    });
    const mgdl = { unit: "mg/dL", system: "http://unitsofmeasure.org", code: "mg/dL" };
    expect([glucose?.valueQuantity, glucose?.component]).toEqual([
      undefined,
      [
        { code: code("2345-7", "Glucose"), valueQuantity: { value: 101, ...mgdl } },
        { code: code("2345-7", "Glucose"), valueQuantity: { value: 102, ...mgdl } },
      ],
    ]);
    expect(
      ((culture?.component ?? []) as { valueCodeableConcept: unknown }[]).map((c) => c.valueCodeableConcept),
    ).toEqual([
      { coding: [{ code: "E.COLI", display: "E coli" }] },
      { coding: [{ code: "KLEB", display: "Klebsiella" }] },
    ]);
    expect(seen?.component).toHaveLength(2);
    // A type without a component map (ED): the first is written, the second reported with its value.
    expect(doc?.component).toBeUndefined();
    expect(r.issues.filter((i) => i[1] === "unmapped_value" && i[2] === "error")).toEqual([
      [
        "OBX.5",
        "unmapped_value",
        "error",
        "OBX-5 repeats and Observation.value[x] holds one value: the first repetition is written, this second one (and any after it) is not",
      ],
    ]);
  });

  it("reports an OBX-5 whose type (OBX-2) is empty; TX lines are joined, not reported", () => {
    const r = convert(
      "ORU^R01^ORU_R01",
      "PID|1||P1^^^F^MR||A^B",
      "OBR|1||F1|24331-1^Panel^LN",
      "OBX|1||x3^NoType^L||foo||||||F",
      "OBX|3| |x5^Spaces^L||bar||||||F",
      "OBX|2|TX|x4^Text^L||line 1~line 2||||||F",
    );
    // OBX-2 empty, and OBX-2 of one space (no value either): each said once.
    const empty = [
      "OBX.5",
      "unmapped_value",
      "error",
      "OBX-2 (the value type) is empty, so OBX-5 cannot be read as a value; it is not written",
    ];
    expect(r.issues.filter((i) => i[1] === "unmapped_value" && i[2] === "error")).toEqual([empty, empty]);
    expect(r.of("Observation")[2]?.valueString).toBe("line 1\nline 2");
  });
});

describe("a message type without its trigger event", () => {
  it("says MessageHeader.event[x] (1..1) cannot be written", () => {
    const r = convert("ADT", "PID|1||P1^^^F^MR||A^B");
    expect(r.of("MessageHeader")[0]?.eventCoding).toBeUndefined();
    expect(r.issues).toContainEqual([
      "MSH.9",
      "missing_value",
      "error",
      "MSH-9 has no trigger event (MSH-9.2), so MessageHeader.event[x], which FHIR requires, is not written",
    ]);
  });
});

describe("HL7's explicit null inside a field", () => {
  it('reads a repetition or component `""` as absent, as it reads a whole field `""`', () => {
    const r = convert(
      "ADT^A01^ADT_A01",
      "EVN|A01|20260301120000-0500",
      'PID|1||T1^^^FAC^MR~""~T1B^^^OTHER^MR||Doe^Jane||19800101|F|||""^^""^^12345',
      "PV1|1|I",
    );
    const patient = r.of("Patient")[0] as Resource;
    expect((patient.identifier as { value: string }[]).map((i) => i.value)).toEqual(["T1", "T1B"]);
    expect(patient.address).toEqual([{ postalCode: "12345" }]);
  });
});

describe("values padded or typed as fixed-width senders write them", () => {
  it("looks a padded PID-8 up without its spaces, and writes a code with runs of whitespace as single spaces, said", () => {
    const r = convert(
      "ORU^R01^ORU_R01",
      "PID|1||P1^^^F^MR||A^B||19800101|F   ",
      "OBR|1||F1|CBC  PANEL^Blood count^L",
      "OBX|1|NM|WBC\tCOUNT^WBC^99LAB|1|7|10*3/uL|||||F",
    );
    expect(r.of("Patient")[0]?.gender).toBe("female");
    expect(r.of("DiagnosticReport")[0]?.code).toEqual({
      coding: [{ code: "CBC PANEL", display: "Blood count" }],
    });
    expect(
      ((r.of("Observation")[0] as Resource).code as { coding: { code: string }[] }).coding[0]?.code,
    ).toBe("WBC COUNT");
    expect(r.issues.filter((i) => String(i[3]).includes("whitespace")).map((i) => i[0])).toEqual([
      "OBR.4",
      "OBR.4.1",
      "OBX.3",
    ]);
  });

  it("gives SCH-8 (appointment type, HL7 table 0277) its own table's system, not SCH-7's 0276", () => {
    const r = convert(
      "SIU^S12^SIU_S12",
      "SCH|1|2||||Add|CHECKUP|Normal|70|Min|^^^202010011126+0215^202010091126+0215",
      "PID|1||P1^^^F^MR||A^B",
    );
    expect(r.of("Appointment")[0]?.appointmentType).toEqual({
      coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0277", code: "Normal" }],
    });
  });
});
