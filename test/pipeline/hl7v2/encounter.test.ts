// Encounter.status, the assigned location's status and the visit number as the IG's PV1[Encounter] map says:
// PV1-45 (discharge) valued -> finished, else PV1-2 (patient class) through PatientClass[EncounterStatus]; the
// trigger event decides only for ADT^A11 (the IG's ADT_A11 map applies MSH[Encounter]: cancelled).
import { beforeAll, describe, expect, it } from "vitest";
import { findBuiltinCrossmap } from "../../../src/crossmap/catalog.js";
import type { Crossmap } from "../../../src/crossmap/crossmap.js";
import { loadCrossmapFile } from "../../../src/crossmap/load.js";
import { convertText } from "../../../src/pipeline/hl7v2/index.js";
import { fhirProblems } from "../../support/fhir.js";

let crossmap: Crossmap;
beforeAll(async () => {
  crossmap = await loadCrossmapFile(findBuiltinCrossmap("hl7v2_2.5.1", "fhir_r4")?.path ?? "");
});

/** The Encounter of a message with this MSH-9 and PV1 (fields by number). */
function encounter(type: string, pv1: Record<number, string>): Record<string, unknown> {
  const parts = ["PV1"];
  for (const [n, v] of Object.entries(pv1)) parts[Number(n)] = v;
  const text = [
    `MSH|^~\\&|APP|FAC|||20240102083000-0500||${type}|C1|P|2.5.1`,
    "PID|1||7^^^HOSP^MR||DOE^JANE||19800304|F",
    Array.from(parts, (p) => p ?? "").join("|"),
    ...(type.startsWith("ORU")
      ? ["OBR|1|P1|F1|1234-5^Test^LN", "OBX|1|NM|1234-5^Test^LN||5|mg/dL|||||F"]
      : []),
  ].join("\r");
  const [r] = [...convertText(text, crossmap, { file: "m.hl7" })];
  if (!r?.ok) throw new Error("malformed");
  const entries = (r.bundle.entry ?? []) as { resource: Record<string, unknown> }[];
  for (const e of entries) expect(fhirProblems(e.resource)).toEqual([]);
  const enc = entries.find((e) => e.resource.resourceType === "Encounter")?.resource;
  if (!enc) throw new Error("no Encounter");
  return enc;
}

describe("Encounter.status (IG PV1[Encounter])", () => {
  it("an ORU's visit takes its status from the patient class, not the trigger event", () => {
    expect(encounter("ORU^R01", { 1: "1", 2: "O" }).status).toBe("in-progress");
    expect(encounter("ORU^R01", { 1: "1", 2: "I" }).status).toBe("in-progress");
    expect(encounter("ORU^R01", { 1: "1", 2: "E" }).status).toBe("in-progress");
  });
  it("a preadmit is planned, an unknown class unknown, whatever the trigger event", () => {
    expect(encounter("ADT^A01", { 1: "1", 2: "P" }).status).toBe("planned");
    expect(encounter("ADT^A03", { 1: "1", 2: "U" }).status).toBe("unknown");
  });
  it("a discharge date makes it finished, whatever the class or event", () => {
    expect(encounter("ADT^A08", { 1: "1", 2: "I", 45: "20240103100000-0500" }).status).toBe("finished");
    expect(encounter("ORU^R01", { 1: "1", 2: "P", 45: "20240103" }).status).toBe("finished");
  });
  it("v2.7 CWE patient classes are read by their code", () => {
    expect(encounter("ADT^A01", { 1: "1", 2: "I^Inpatient^HL70004" }).status).toBe("in-progress");
  });
  it("an ADT^A11 cancels the visit (IG ADT_A11: MSH[Encounter]), even with a discharge date", () => {
    expect(encounter("ADT^A11", { 1: "1", 2: "I" }).status).toBe("cancelled");
    expect(encounter("ADT^A11", { 1: "1", 2: "I", 45: "20240103" }).status).toBe("cancelled");
  });
});

describe("the rest of PV1 the comparison with Microsoft named", () => {
  it("PV1-19 is a visit number (type VN) whatever CX-5 says; PV1-50 an identifier too", () => {
    expect(
      encounter("ADT^A01", { 1: "1", 2: "I", 19: "40007716^^^AccMng^AM", 50: "50^^^T123^MR" }).identifier,
    ).toEqual([
      {
        type: {
          coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: "VN" }],
          text: "visit number",
        },
        value: "40007716",
        assigner: { display: "AccMng" },
      },
      {
        type: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: "MR" }] },
        value: "50",
        assigner: { display: "T123" },
      },
    ]);
  });
  it("the assigned location is planned for a preadmit, else active (IG PV1-3)", () => {
    const status = (cls: string) =>
      (encounter("ADT^A01", { 1: "1", 2: cls, 3: "4E^136^B" }).location as { status?: string }[])[0]?.status;
    expect(status("P")).toBe("planned");
    expect(status("I")).toBe("active");
    expect(encounter("ADT^A01", { 1: "1", 2: "I" }).location).toBeUndefined();
  });
});

describe("OBX-6 units (IG OBX-6, CWE[Quantity])", () => {
  it("an ORU's UCUM-valid units sent without a coding system get the UCUM system and code", async () => {
    const text = [
      "MSH|^~\\&|APP|FAC|||20240102083000-0500||ORU^R01|C1|P|2.5.1",
      "PID|1||7^^^HOSP^MR||DOE^JANE||19800304|F",
      "OBR|1|P1|F1|1234-5^Test^LN",
      "OBX|1|NM|1^A^LN||5|mg/dL|||||F",
      "OBX|2|NM|2^B^LN||8.2|giga.l-1|||||F",
      "OBX|3|NM|3^C^LN||60|beats/min^^ISO|||||F",
      "OBX|4|NM|4^D^LN||7|mmol/L^millimoles per litre^UCUM|||||F",
    ].join("\r");
    const [r] = [...convertText(text, crossmap, { file: "m.hl7" })];
    if (!r?.ok) throw new Error("malformed");
    const values = ((r.bundle.entry ?? []) as { resource: Record<string, unknown> }[])
      .filter((e) => e.resource.resourceType === "Observation")
      .map((e) => e.resource.valueQuantity);
    expect(values).toEqual([
      { value: 5, unit: "mg/dL", system: "http://unitsofmeasure.org", code: "mg/dL" },
      { value: 8.2, unit: "giga.l-1" },
      { value: 60, unit: "beats/min" },
      { value: 7, unit: "millimoles per litre", system: "http://unitsofmeasure.org", code: "mmol/L" },
    ]);
  });
});
