// One hand-written ADT^A01 with its own delimiters (* : ! / %) and escapes, through the built-in crossmap,
// compared whole: the transaction Bundle, its ids, fullUrls and references, issues and unmapped segments.
import { beforeAll, describe, expect, it } from "vitest";
import { findBuiltinCrossmap } from "../../../src/crossmap/catalog.js";
import type { Crossmap } from "../../../src/crossmap/crossmap.js";
import { loadCrossmapFile } from "../../../src/crossmap/load.js";
import { segmentReads, segmentReadsOfDocument } from "../../../src/pipeline/hl7v2/bundle.js";
import { type ConvertResult, convertText } from "../../../src/pipeline/hl7v2/index.js";
import { deriveId } from "../../../src/transforms/derived-id.js";
import { fhirProblems } from "../../support/fhir.js";

const pv1 = (fields: Record<number, string>) => {
  const parts = ["PV1"];
  for (const [n, v] of Object.entries(fields)) parts[Number(n)] = v;
  return Array.from(parts, (p) => p ?? "").join("*");
};
const MESSAGE = [
  "MSH*:!/%*APP*FAC***20240102083000-0500**ADT:A01*C1*P*2.5.1",
  "EVN*A01",
  "PID*1**7:::HOSP%2.16.840.1.113883.19%ISO:MR**O/S/BRIEN:PAT/T/SUE**19800304*F***1 Elm/F/St::Town:NC:27401",
  pv1({ 1: "1", 2: "E", 19: "V9", 44: "20240102080000-0500" }),
  "DG1*1**I10.9:Hypertension:I10**20240102*F",
  "AL1*1*DA*70618:Penicillin:RXNORM*SV*hives!rash",
  "ZZZ*custom",
].join("\r");

// sha1 of the segments joined by CR: pinned, so a change to the id derivation is a visible change.
const ID = "d6041dd5-08b1-55fa-bdfa-23fae7";
const url = (n: number) => `urn:uuid:${ID}${n.toString(16).padStart(6, "0")}`;
const id = (n: number) => `${ID}${n.toString(16).padStart(6, "0")}`;
// The patient's and the visit's ids come from their identifiers, not the message: PID-3 with its assigning
// authority (counted whole, its parts in order), and the visit number PV1-19 within the sending facility.
const PATIENT = String(
  deriveId(["CX", "7", "HOSP\u001f2.16.840.1.113883.19\u001fISO"], "Patient", "uuid", undefined, true),
);
const VISIT = String(deriveId(["CX at facility", "V9", "FAC"], "Encounter", "uuid", undefined, true));

let result: ConvertResult;
beforeAll(async () => {
  const crossmap: Crossmap = await loadCrossmapFile(
    findBuiltinCrossmap("hl7v2_2.5.1", "fhir_r4")?.path ?? "",
  );
  [result] = [...convertText(MESSAGE, crossmap, { file: "a01.hl7", bundle: "transaction" })] as [
    ConvertResult,
  ];
});

describe("an ADT^A01 with custom delimiters as a transaction Bundle", () => {
  it("is mapped whole, with PUTs to the deterministic ids", () => {
    if (!result.ok) throw new Error("malformed");
    expect(result.bundle).toEqual({
      resourceType: "Bundle",
      id: id(0),
      // MSH-10 in the sender's system: without universal ids, a URN of MSH-3 and MSH-4.
      identifier: { system: "urn:hl7v2-sender:APP:FAC", value: "C1" },
      type: "transaction",
      entry: [
        {
          fullUrl: url(1),
          resource: {
            resourceType: "MessageHeader",
            id: id(1),
            eventCoding: { system: "http://terminology.hl7.org/CodeSystem/v2-0003", code: "A01" },
            // A namespace alone is no URL: the required endpoint is marked unknown, as the IG says.
            source: {
              name: "APP",
              _endpoint: {
                extension: [
                  { url: "http://hl7.org/fhir/StructureDefinition/data-absent-reason", valueCode: "unknown" },
                ],
              },
              version: "2.5.1",
            },
            sender: { display: "FAC" },
            focus: [{ reference: `urn:uuid:${PATIENT}` }],
          },
          request: { method: "PUT", url: `MessageHeader/${id(1)}` },
        },
        {
          fullUrl: url(2),
          resource: {
            resourceType: "Provenance",
            id: id(2),
            target: [{ reference: `urn:uuid:${PATIENT}` }],
            // EVN-2 is not sent: MSH-7 is when the event was recorded.
            recorded: "2024-01-02T08:30:00-05:00",
            activity: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0003", code: "A01" }] },
            agent: [
              {
                who: { display: "FAC" },
                type: {
                  coding: [
                    {
                      system: "http://terminology.hl7.org/CodeSystem/provenance-participant-type",
                      code: "author",
                    },
                  ],
                },
              },
            ],
          },
          request: { method: "PUT", url: `Provenance/${id(2)}` },
        },
        {
          fullUrl: `urn:uuid:${PATIENT}`,
          resource: {
            resourceType: "Patient",
            id: PATIENT,
            identifier: [
              {
                type: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: "MR" }] },
                system: "urn:oid:2.16.840.1.113883.19",
                value: "7",
                assigner: { display: "HOSP" },
              },
            ],
            name: [{ family: "O:BRIEN", given: ["PAT%SUE"] }],
            birthDate: "1980-03-04",
            gender: "female",
            address: [{ line: ["1 Elm*St"], city: "Town", state: "NC", postalCode: "27401" }],
          },
          request: { method: "PUT", url: `Patient/${PATIENT}` },
        },
        {
          fullUrl: `urn:uuid:${VISIT}`,
          resource: {
            resourceType: "Encounter",
            id: VISIT,
            status: "in-progress",
            class: {
              system: "http://terminology.hl7.org/CodeSystem/v3-ActCode",
              code: "EMER",
            },
            subject: { reference: `urn:uuid:${PATIENT}` },
            identifier: [
              {
                type: {
                  coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: "VN" }],
                  text: "visit number",
                },
                value: "V9",
              },
            ],
            period: { start: "2024-01-02T08:00:00-05:00" },
            // The DG1's Condition, listed in the visit (IG DG1[Encounter]); DG1-6 F writes no use.
            diagnosis: [{ condition: { reference: url(5) } }],
          },
          request: { method: "PUT", url: `Encounter/${VISIT}` },
        },
        {
          fullUrl: url(5),
          resource: {
            resourceType: "Condition",
            category: [
              {
                coding: [
                  {
                    system: "http://terminology.hl7.org/CodeSystem/condition-category",
                    code: "encounter-diagnosis",
                  },
                ],
              },
            ],
            id: id(5),
            subject: { reference: `urn:uuid:${PATIENT}` },
            encounter: { reference: `urn:uuid:${VISIT}` },
            code: {
              coding: [
                { system: "http://hl7.org/fhir/sid/icd-10-cm", code: "I10.9", display: "Hypertension" },
              ],
            },
            onsetDateTime: "2024-01-02",
            verificationStatus: {
              coding: [
                { system: "http://terminology.hl7.org/CodeSystem/condition-ver-status", code: "confirmed" },
              ],
            },
          },
          request: { method: "PUT", url: `Condition/${id(5)}` },
        },
        {
          fullUrl: url(6),
          resource: {
            resourceType: "AllergyIntolerance",
            clinicalStatus: {
              coding: [
                {
                  system: "http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical",
                  code: "active",
                },
              ],
            },
            id: id(6),
            patient: { reference: `urn:uuid:${PATIENT}` },
            encounter: { reference: `urn:uuid:${VISIT}` },
            code: {
              coding: [
                {
                  system: "http://www.nlm.nih.gov/research/umls/rxnorm",
                  code: "70618",
                  display: "Penicillin",
                },
              ],
            },
            category: ["medication"],
            criticality: "high",
            reaction: [{ manifestation: [{ text: "hives" }] }],
          },
          request: { method: "PUT", url: `AllergyIntolerance/${id(6)}` },
        },
      ],
    });
    // Nothing is dropped unsaid: every segment no entity maps is named, with its position.
    expect(result.issues).toEqual(
      ["7 ZZZ"].map((at) => ({
        record: `a01.hl7#1/${at}`,
        field: "",
        target: "",
        code: "unmapped_segment",
        severity: "warning",
        message: `segment ${at.slice(2)} is not mapped by the crossmap; its content is not in the Bundle`,
      })),
    );
    expect(Object.fromEntries(result.unmapped)).toEqual({ ZZZ: 1 });
  });
  it("passes the FHIR validators, resource by resource", () => {
    if (!result.ok) throw new Error("malformed");
    for (const r of result.resources) expect(fhirProblems(r)).toEqual([]);
  });
});

describe("the segments an entity reads through another", () => {
  // A segment read only by an output's id, condition or key must be parsed too: with `--via fhir_r4 --to
  // omop_cdm_v5.4` no ServiceRequest is wanted, so nothing else parsed ORC and OBR, and an Observation
  // whose id comes from its order's numbers took another id than `--to fhir_r4` gives it.
  const doc = {
    source: "hl7v2_2.5.1",
    target: "fhir_r4",
    entity_map: {
      OBX: {
        target: "Observation",
        id: {
          salt: "Observation",
          identity: [{ name: "result", require: ["$ctx.seg.ORC.3.1", "3.1"], with: ["$ctx.seg.OBR.3.2"] }],
          fallback: "$ctx.id",
        },
      },
      PID: [
        { target: "Patient" },
        { target: "Observation", name: "will", when: { field: "$ctx.child.PD1.7", present: true } },
      ],
    },
    field_map: {
      "OBX.5": { target: "Observation.valueString" },
      "OBR.$ctx.seg.ORC.$ctx.child.TQ1.7": { target: "ServiceRequest.occurrencePeriod.start" },
    },
  };
  const expected = new Map([
    [
      "OBR",
      [
        [
          ["seg", "ORC"],
          ["child", "TQ1"],
        ],
      ],
    ],
    ["OBX", [[["seg", "ORC"]], [["seg", "OBR"]]]],
    ["PID", [[["child", "PD1"]]]],
  ]);

  it("finds them in the outputs (id, when) as well as in the fields", () => {
    expect(segmentReadsOfDocument(doc)).toEqual(expected);
  });

  it("finds the built-in crossmap's Observation reading its order's ORC and OBR for its id", async () => {
    const cm = await loadCrossmapFile(findBuiltinCrossmap("hl7v2_2.5.1", "fhir_r4")?.path ?? "");
    const obx = (segmentReads(cm).get("OBX") ?? []).map((c) => c.map((s) => s.join(" ")).join(" / "));
    expect(obx).toEqual(expect.arrayContaining(["seg ORC", "seg OBR", "seg PID"]));
  });
});
