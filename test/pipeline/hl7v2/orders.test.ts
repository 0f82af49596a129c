// The built-in HL7 v2 -> FHIR crossmap's use of the crossmap language, on hand-written messages: an OBR is a
// ServiceRequest in an order and also a DiagnosticReport in a result (routing on the message type); the
// ordering provider of ORC-12 and OBR-16 is one Practitioner (derived id + dedupe); the text lines of a
// report or a document are gathered into one base64 attachment (into + join + encode); an IN1 names its
// insurer as an Organization, one per insurer and message.
import { beforeAll, describe, expect, it } from "vitest";
import { findBuiltinCrossmap } from "../../../src/crossmap/catalog.js";
import type { Crossmap } from "../../../src/crossmap/crossmap.js";
import { loadCrossmapFile } from "../../../src/crossmap/load.js";
import { type ConvertResult, convertText } from "../../../src/pipeline/hl7v2/index.js";
import { bundleEntryProblems } from "../../support/fhir.js";

type Resource = Record<string, unknown> & { resourceType: string; id: string; identifier?: unknown[] };
type Entry = { fullUrl: string; resource: Resource };

const MSH = (type: string) => `MSH|^~\\&|LAB|GHH|EHR|GHH|202110211630+0215||${type}|M${type.length}|P|2.5.1`;
const PID = "PID|1||PATID1234^^^GHH^MR||EVERYMAN^ADAM^A||19880818|M";
const ORC = (control: string) =>
  `ORC|${control}|1101^GHHPlacer|1201^GHHFiller||SC||||202110201126+0215|||3850^ORDPROVIDER^JONES^A`;
const OBR = (extra = "") =>
  `OBR|1|1101^GHHPlacer|1201^GHHFiller|24725-4^CT Head^LN||202110201200+0215|202110201200+0215|||||||||3850^ORDPROVIDER^JONES^A${extra}`;
const IN1 = (n: number) =>
  `IN1|${n}|PLAN${n}^Plan ${n}|IC123^^^^NIIP|Acme Insurance|123 Main St^^Springfield^IL^62701||^WPN^PH^^^217^5551234`;

const ORM = [
  MSH("ORM^O01^ORM_O01"),
  PID,
  IN1(1),
  IN1(2),
  ORC("NW"),
  OBR(),
  "DG1|1||R51^Headache^I10||202110201100+0215|W",
].join("\r");
const ORU = [
  MSH("ORU^R01^ORU_R01"),
  PID,
  ORC("RE"),
  OBR("||||||202110211630+0215|||F"),
  "OBX|1|TX|||CT HEAD WITHOUT CONTRAST||||||F",
  "OBX|2|TX|||FINDINGS: No acute intracranial abnormality.||||||F",
  "OBX|3|TX|||IMPRESSION: Normal study.||||||F",
  "OBX|4|NM|8867-4^Heart rate^LN||72|/min|||||F",
].join("\r");
// A lab result written before SPM (v2.5): the specimen in OBR-7/8 (collected), OBR-9 (volume), OBR-14
// (received) and OBR-15 (SPS: source as a CWE in subcomponents, additive, free text, body site); and the
// same with an SPM, whose Specimen is then the order's.
const obrFields: Record<number, string> = {
  1: "1",
  2: "1101^GHHPlacer",
  3: "1201^GHHFiller",
  4: "2345-7^Glucose^LN",
  7: "202110201155+0215",
  8: "202110201210+0215",
  9: "5^mL&milliliter&UCUM",
  14: "202110201300+0215",
  15: "BLDV&Blood venous&HL70070^HEP&Lithium/Li Hep&HL70371^drawn twice^LACF&Left antecubital fossa&HL70163",
  22: "202110211630+0215",
  25: "F",
};
const SPECIMEN_OBR = `OBR|${Array.from({ length: 25 }, (_, i) => obrFields[i + 1] ?? "").join("|")}`;
const ORU_OBR_SPECIMEN = [
  MSH("ORU^R01^ORU_R01"),
  PID,
  ORC("RE"),
  SPECIMEN_OBR,
  "OBX|1|NM|2345-7^Glucose^LN||95|mg/dL|||||F",
].join("\r");
const ORU_SPM = [
  MSH("ORU^R01^ORU_R01"),
  PID,
  ORC("RE"),
  SPECIMEN_OBR,
  "OBX|1|NM|2345-7^Glucose^LN||95|mg/dL|||||F",
  "SPM|1|SP1||BLDV^Blood venous^HL70487",
].join("\r");
// A result measured by a device the PRT after it names (v2.7+ PRT, as senders add it to v2.5.1 messages).
const ORU_DEVICE = [
  MSH("ORU^R01^ORU_R01"),
  PID,
  ORC("RE"),
  OBR("||||||202110211630+0215|||F"),
  "OBX|1|NM|8867-4^Heart rate^LN||72|/min|||||F",
  "PRT|PRT1|AD||EQUIP^Equipment^HL70912|||||WARD1^R1|MON42^GHH^1.2.3^ISO|||||||||LOT7|SN123",
].join("\r");
const MDM = [
  MSH("MDM^T02^MDM_T02"),
  "EVN|T02|202110211630+0215",
  PID,
  "PV1|1|I",
  "TXA|1|DI|TX|202110211600+0215||202110211630+0215|||||||DOC42||||AU",
  "OBX|1|TX|report^Report^L||Line one||||||F",
  "OBX|2|TX|report^Report^L||Line two||||||F",
].join("\r");

let crossmap: Crossmap;
const bundles = new Map<string, Entry[]>();
beforeAll(async () => {
  crossmap = await loadCrossmapFile(findBuiltinCrossmap("hl7v2_2.5.1", "fhir_r4")?.path ?? "");
  for (const [name, text] of Object.entries({ ORM, ORU, MDM, ORU_OBR_SPECIMEN, ORU_SPM, ORU_DEVICE })) {
    const [r] = [...convertText(text, crossmap, { file: `${name}.hl7` })] as [ConvertResult];
    if (!r.ok) throw new Error(`${name} is malformed`);
    expect(r.issues.filter((i) => i.severity === "error")).toEqual([]);
    bundles.set(name, (r.bundle.entry ?? []) as Entry[]);
  }
});

const of = (name: string, type: string): Resource[] =>
  (bundles.get(name) ?? []).filter((e) => e.resource.resourceType === type).map((e) => e.resource);
const urn = (r: Resource | undefined) => `urn:uuid:${r?.id}`;
const decode = (b64: unknown) => Buffer.from(String(b64), "base64").toString("utf8");

describe("the built-in HL7 v2 crossmap on orders, results and documents", () => {
  it("makes an order's OBR a ServiceRequest and no DiagnosticReport", () => {
    expect(of("ORM", "DiagnosticReport")).toEqual([]);
    const [order] = of("ORM", "ServiceRequest");
    expect(order).toMatchObject({
      status: "active",
      intent: "order",
      code: { coding: [{ system: "http://loinc.org", code: "24725-4", display: "CT Head" }] },
      subject: { reference: urn(of("ORM", "Patient")[0]) },
      identifier: [{ value: "1101" }, { value: "1201" }],
      authoredOn: "2021-10-20T11:26:00+02:15",
    });
  });

  it("names the order's diagnosis (DG1, a Condition) as its reason", () => {
    const [condition, ...more] = of("ORM", "Condition");
    expect(more).toEqual([]);
    expect(condition?.code).toEqual({
      coding: [{ system: "http://hl7.org/fhir/sid/icd-10-cm", code: "R51", display: "Headache" }],
    });
    expect(of("ORM", "ServiceRequest")[0]?.reasonReference).toEqual([{ reference: urn(condition) }]);
  });

  it("makes ORC-12 and OBR-16, the same person, one Practitioner that the order's requester names", () => {
    const people = of("ORM", "Practitioner");
    expect(people).toHaveLength(1);
    expect(people[0]).toMatchObject({
      name: [{ family: "ORDPROVIDER", given: ["JONES", "A"] }],
      identifier: [{ value: "3850" }],
    });
    expect(of("ORM", "ServiceRequest")[0]?.requester).toEqual({ reference: urn(people[0]) });
  });

  it("names one insurer twice as one Organization, the payor of both Coverages", () => {
    const [payor, ...more] = of("ORM", "Organization");
    expect(more).toEqual([]);
    expect(payor).toMatchObject({
      name: "Acme Insurance",
      identifier: [
        {
          value: "IC123",
          type: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: "NIIP" }] },
        },
      ],
      address: [{ line: ["123 Main St"], city: "Springfield", state: "IL", postalCode: "62701" }],
    });
    const coverages = of("ORM", "Coverage");
    expect(coverages).toHaveLength(2);
    for (const c of coverages)
      expect(c.payor).toEqual([
        { reference: urn(payor), display: "Acme Insurance", identifier: payor?.identifier?.[0] },
      ]);
  });

  it("makes a result's OBR a DiagnosticReport based on its ServiceRequest, with the text lines as one presented form", () => {
    const [report, ...others] = of("ORU", "DiagnosticReport");
    expect(others).toEqual([]);
    const [order] = of("ORU", "ServiceRequest");
    const observations = of("ORU", "Observation");
    expect(observations.map((o) => o.code)).toEqual([
      { coding: [{ system: "http://loinc.org", code: "8867-4", display: "Heart rate" }] },
    ]);
    expect(report).toMatchObject({
      status: "final",
      basedOn: [{ reference: urn(order), identifier: { value: "1101" } }],
      result: [{ reference: urn(observations[0]) }],
      presentedForm: [{ contentType: "text/plain" }],
    });
    const form = (report?.presentedForm as { data: string }[] | undefined)?.[0];
    expect(decode(form?.data)).toBe(
      "CT HEAD WITHOUT CONTRAST\nFINDINGS: No acute intracranial abnormality.\nIMPRESSION: Normal study.",
    );
  });

  it("makes the specimen an OBR states (OBR-7/8, 9, 14, 15) a Specimen when the order has no SPM, named by the order, the report and its Observations", () => {
    const [specimen, ...more] = of("ORU_OBR_SPECIMEN", "Specimen");
    expect(more).toEqual([]);
    expect(specimen).toEqual({
      resourceType: "Specimen",
      id: specimen?.id,
      subject: { reference: urn(of("ORU_OBR_SPECIMEN", "Patient")[0]) },
      type: {
        coding: [
          { system: "http://terminology.hl7.org/CodeSystem/v2-0070", code: "BLDV", display: "Blood venous" },
        ],
      },
      container: [
        {
          additiveCodeableConcept: {
            coding: [
              {
                system: "http://terminology.hl7.org/CodeSystem/v2-0371",
                code: "HEP",
                display: "Lithium/Li Hep",
              },
            ],
          },
        },
      ],
      note: [{ text: "drawn twice" }],
      collection: {
        bodySite: {
          coding: [
            {
              system: "http://terminology.hl7.org/CodeSystem/v2-0163",
              code: "LACF",
              display: "Left antecubital fossa",
            },
          ],
        },
        collectedPeriod: { start: "2021-10-20T11:55:00+02:15", end: "2021-10-20T12:10:00+02:15" },
        quantity: { value: 5, unit: "milliliter", system: "http://unitsofmeasure.org", code: "mL" },
      },
      receivedTime: "2021-10-20T13:00:00+02:15",
    });
    expect(of("ORU_OBR_SPECIMEN", "DiagnosticReport")[0]?.specimen).toEqual([{ reference: urn(specimen) }]);
    expect(of("ORU_OBR_SPECIMEN", "ServiceRequest")[0]?.specimen).toEqual([{ reference: urn(specimen) }]);
    // Every Observation of the order names it too (IG OBR[Specimen]).
    expect(of("ORU_OBR_SPECIMEN", "Observation").map((o) => o.specimen)).toEqual([
      { reference: urn(specimen) },
    ]);
  });

  it("makes no Specimen of an OBR whose order has an SPM: the SPM's is the order's specimen", () => {
    const [specimen, ...more] = of("ORU_SPM", "Specimen");
    expect(more).toEqual([]);
    expect(specimen?.type).toEqual({
      coding: [
        { system: "http://terminology.hl7.org/CodeSystem/v2-0487", code: "BLDV", display: "Blood venous" },
      ],
    });
    expect(of("ORU_SPM", "DiagnosticReport")[0]?.specimen).toEqual([{ reference: urn(specimen) }]);
    expect(of("ORU_SPM", "ServiceRequest")[0]?.specimen).toEqual([{ reference: urn(specimen) }]);
    // An Observation outside the SPM's group names no specimen (the SPM's OBX would name the SPM's).
    expect(of("ORU_SPM", "Observation").map((o) => o.specimen)).toEqual([undefined]);
  });

  it("makes the device a PRT names (PRT-10) a Device, which the Observation before it names", () => {
    const [device, ...more] = of("ORU_DEVICE", "Device");
    expect(more).toEqual([]);
    expect(device).toEqual({
      resourceType: "Device",
      id: device?.id,
      identifier: [{ value: "MON42", system: "urn:oid:1.2.3" }],
      lotNumber: "LOT7",
      serialNumber: "SN123",
    });
    expect(of("ORU_DEVICE", "Observation").map((o) => o.device)).toEqual([{ reference: urn(device) }]);
  });

  it("gathers a document's text lines into its DocumentReference instead of Observations", () => {
    expect(of("MDM", "Observation")).toEqual([]);
    const [doc, ...more] = of("MDM", "DocumentReference");
    expect(more).toEqual([]);
    const attachment = (doc?.content as { attachment: Record<string, unknown> }[] | undefined)?.[0]
      ?.attachment;
    expect(attachment?.contentType).toBe("text/plain");
    expect(decode(attachment?.data)).toBe("Line one\nLine two");
  });

  it("gives Bundles that pass the FHIR validators, every reference resolving inside its Bundle", () => {
    for (const [name, es] of bundles) expect(bundleEntryProblems(es), name).toEqual([]);
  });
});
