// The rows of the IG's message maps closed for issue 30, exactly, on the coverage test messages
// (test/fixtures/hl7v2/ig-coverage/): AIS/AIG/AIL/AIP into the Appointment, DG1 into Encounter.diagnosis,
// MRG-3 as the prior Account, SCH-26 as the order, PD1-7 as the living will, ADT^A17 placed in its structure,
// PID-33/34 as the last-update Provenance, PV1-16 as the patient-importance extension, ROL/PRT into the
// Encounter's participants and the Patient's general practitioners.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { findBuiltinCrossmap } from "../../../src/crossmap/catalog.js";
import type { Crossmap } from "../../../src/crossmap/crossmap.js";
import { loadCrossmapFile } from "../../../src/crossmap/load.js";
import { convertText } from "../../../src/pipeline/hl7v2/index.js";
import { fhirProblems } from "../../support/fhir.js";
import { FIXTURES_DIR } from "../../support/omop.js";

type Resource = Record<string, unknown> & { resourceType: string; id: string };
let cm: Crossmap;

beforeAll(async () => {
  cm = await loadCrossmapFile(findBuiltinCrossmap("hl7v2_2.5.1", "fhir_r4")?.path ?? "");
});

/** The message's Bundle entries: fullUrl -> resource, and the resources of one type. */
function map(name: string) {
  const text = readFileSync(join(FIXTURES_DIR, "hl7v2", "ig-coverage", name), "utf8");
  const [r] = [...convertText(text, cm, { file: name })];
  if (!r?.ok) throw new Error(`${name} is malformed`);
  const entries = (r.bundle.entry ?? []) as { fullUrl: string; resource: Resource }[];
  const byUrl = new Map(entries.map((e) => [e.fullUrl, e.resource]));
  const of = (type: string) => entries.filter((e) => e.resource.resourceType === type).map((e) => e.resource);
  return { byUrl, of };
}

const ref = (v: unknown) => (v as { reference: string }).reference;

describe("IG rows closed for issue 30", () => {
  it("lists what a SIU books in its Appointment: AIS as serviceType, AIG/AIL/AIP as participants", () => {
    const { byUrl, of } = map("SIU_S12.hl7");
    const [appointment] = of("Appointment");
    expect(appointment?.serviceType).toEqual([
      { coding: [{ system: "http://loinc.org", code: "58410-2", display: "CBC panel" }] },
    ]);
    const participants = appointment?.participant as Record<string, unknown>[];
    expect(participants.map((p) => byUrl.get(ref(p.actor))?.resourceType)).toEqual([
      "Patient",
      "Device",
      "Location",
      "PractitionerRole",
    ]);
    expect(participants.slice(1).map(({ actor: _, ...p }) => p)).toEqual([
      {
        type: [{ coding: [{ code: "011", display: "Lab equipment" }] }],
        status: "accepted",
        period: { start: "2024-01-10T09:00:00+01:00" },
      },
      { status: "accepted", period: { start: "2024-01-10T09:00:00+01:00" } },
      {
        type: [{ coding: [{ code: "019", display: "Phlebotomist" }] }],
        status: "accepted",
        period: { start: "2024-01-10T09:00:00+01:00" },
      },
    ]);
  });

  it("lists a visit's DG1 in its Encounter.diagnosis, use AD for an admitting diagnosis", () => {
    const { byUrl, of } = map("ADT_A01.hl7");
    const [encounter] = of("Encounter");
    const diagnosis = encounter?.diagnosis as { condition: unknown; use: unknown }[];
    expect(diagnosis).toHaveLength(1);
    expect(diagnosis[0]?.use).toEqual({
      coding: [
        {
          system: "http://terminology.hl7.org/CodeSystem/diagnosis-role",
          code: "AD",
          display: "Admission Diagnosis",
        },
      ],
    });
    expect(byUrl.get(ref(diagnosis[0]?.condition))?.resourceType).toBe("Condition");
  });

  it("leaves Encounter.diagnosis out when the message has no visit", () => {
    const text = readFileSync(join(FIXTURES_DIR, "hl7v2", "ig-coverage", "ADT_A01.hl7"), "utf8")
      .split("\r")
      .filter((l) => !l.startsWith("PV1|") && !l.startsWith("PV2|"))
      .join("\r");
    const [r] = [...convertText(text, cm, { file: "no-visit.hl7" })];
    if (!r?.ok) throw new Error("malformed");
    expect(r.issues.filter((i) => i.severity === "error" && i.code !== "unmapped_value")).toEqual([]);
    const entries = (r.bundle.entry ?? []) as { resource: Resource }[];
    expect(entries.filter((e) => e.resource.resourceType === "Condition")).toHaveLength(1);
  });

  it("makes MRG-3 the prior Account, status unknown, beside the PID-18 account", () => {
    const { byUrl, of } = map("ADT_A06.hl7");
    const accounts = of("Account");
    expect(accounts.map((a) => [(a.identifier as { value: string }[])[0]?.value, a.status])).toEqual([
      ["ACC1", "active"],
      ["ACCOLD", "unknown"],
    ]);
    for (const a of accounts)
      expect(byUrl.get(ref((a.subject as unknown[])[0]))?.resourceType).toBe("Patient");
  });

  it("places an ADT^A17's two patients apart: each visit and result belongs to its own patient", () => {
    const { byUrl, of } = map("ADT_A17.hl7");
    const owner = (r: Resource) =>
      (byUrl.get(ref(r.subject))?.identifier as { value: string }[] | undefined)?.[0]?.value;
    expect(of("Encounter").map(owner)).toEqual(["PAT1", "PAT2"]);
    expect(of("Observation").map(owner)).toEqual(["PAT1", "PAT1", "PAT1", "PAT2", "PAT2"]); // with each one's living will (PD1-7)
  });

  it("makes the order a SIU is for (SCH-26) the Appointment's basedOn, with the id the ORM's order has", () => {
    const { byUrl, of } = map("SIU_S12.hl7");
    const [appointment] = of("Appointment");
    const order = byUrl.get(ref(((appointment?.basedOn ?? []) as unknown[])[0]));
    expect(order).toMatchObject({
      resourceType: "ServiceRequest",
      status: "unknown",
      intent: "order",
      identifier: [{ value: "PLAC9", assigner: { display: "IGCOV" } }],
    });
    const orm = readFileSync(join(FIXTURES_DIR, "hl7v2", "ig-coverage", "ORM_O01.hl7"), "utf8").replaceAll(
      "PLAC1^IGCOV",
      "PLAC9^IGCOV",
    );
    const [r] = [...convertText(orm, cm, { file: "orm.hl7" })];
    if (!r?.ok) throw new Error("malformed");
    const ids = ((r.bundle.entry ?? []) as { resource: Resource }[])
      .filter((e) => e.resource.resourceType === "ServiceRequest")
      .map((e) => e.resource.id);
    expect(ids).toContain(order?.id);
  });

  it("makes PD1-7 the patient's living-will Observation (LOINC 75320-2, table 0315 value)", () => {
    const { byUrl, of } = map("ADT_A01.hl7");
    const [will] = of("Observation").filter(
      (o) => (o.code as { coding: { code: string }[] }).coding[0]?.code === "75320-2",
    );
    const { id: _, subject, ...rest } = will as Resource;
    expect(rest).toEqual({
      resourceType: "Observation",
      status: "final",
      code: { coding: [{ system: "http://loinc.org", code: "75320-2" }] },
      valueCodeableConcept: {
        coding: [
          {
            system: "http://terminology.hl7.org/CodeSystem/v2-0315",
            code: "Y",
            display: "Yes, patient has a living will",
          },
        ],
      },
    });
    expect(byUrl.get(ref(subject))?.resourceType).toBe("Patient");
  });

  it("writes PID-33/PID-34 as the Patient's last-update Provenance and PV1-16 as its importance", () => {
    const { byUrl, of } = map("ORU_R01.hl7");
    const [patient] = of("Patient");
    const provenances = of("Provenance").filter(
      (p) => byUrl.get(ref(((p.target ?? []) as unknown[])[0]))?.resourceType === "Patient",
    );
    expect(provenances.map(({ id: _, target: __, ...p }) => p)).toEqual([
      {
        resourceType: "Provenance",
        occurredDateTime: "2024-01-02T03:04:00+01:00",
        recorded: "2024-01-02T03:04:00+01:00",
        activity: {
          coding: [{ system: "http://terminology.hl7.org/CodeSystem/v3-DataOperation", code: "UPDATE" }],
        },
        agent: [
          {
            who: { display: "IGCOV HOSP" },
            type: {
              coding: [
                {
                  system: "http://terminology.hl7.org/CodeSystem/provenance-participant-type",
                  code: "performer",
                },
              ],
            },
          },
        ],
      },
    ]);
    expect(byUrl.get(ref(((provenances[0]?.target ?? []) as unknown[])[0]))).toBe(patient);
    expect(
      ((patient?.extension ?? []) as { url: string }[]).find((e) => e.url.endsWith("patient-importance")),
    ).toEqual({
      url: "http://hl7.org/fhir/StructureDefinition/patient-importance",
      valueCodeableConcept: {
        coding: [
          {
            system: "http://terminology.hl7.org/CodeSystem/v3-EncounterSpecialCourtesy",
            code: "VIP",
            display: "very important person",
          },
        ],
      },
    });
  });

  it("adds the visit's ROL to the Encounter's participants and a PP role's person to the Patient's GPs", () => {
    const { byUrl, of } = map("ADT_A01.hl7");
    const [encounter] = of("Encounter");
    const roles = ((encounter?.participant ?? []) as Record<string, unknown>[]).filter(
      (p) => byUrl.get(ref(p.individual))?.resourceType === "PractitionerRole",
    );
    expect(roles.map(({ individual: _, ...p }) => p)).toEqual([
      {
        type: [
          {
            coding: [
              {
                system: "http://terminology.hl7.org/CodeSystem/v3-ParticipationType",
                code: "CON",
                display: "consultant",
              },
              {
                system: "http://terminology.hl7.org/CodeSystem/v2-0443",
                code: "CP",
                display: "Consulting Provider",
              },
            ],
          },
        ],
        period: { start: "2024-01-02T03:04:00+01:00" },
      },
    ]);
    const [patient] = of("Patient");
    expect(patient?.generalPractitioner).toEqual([
      { identifier: { value: "GP1" }, display: "Gina Goodman" },
      { identifier: { value: "ORG1" }, display: "IGCOV CLINIC" },
      { identifier: { value: "PCP1" }, display: "Paula Primary" },
      { identifier: { value: "PRTP1" }, display: "Pat Party" },
    ]);
  });

  it("writes only valid FHIR R4 (Medplum's validator, the R4 JSON schema) on every IG coverage message", () => {
    const problems: string[] = [];
    let resources = 0;
    for (const f of readdirSync(join(FIXTURES_DIR, "hl7v2", "ig-coverage")).filter((n) =>
      n.endsWith(".hl7"),
    )) {
      const text = readFileSync(join(FIXTURES_DIR, "hl7v2", "ig-coverage", f), "utf8");
      for (const res of convertText(text, cm, { file: f })) {
        if (!res.ok) throw new Error(`${f} is malformed`);
        for (const e of (res.bundle.entry ?? []) as { resource: Resource }[]) {
          resources++;
          for (const p of fhirProblems(e.resource)) problems.push(`${f} ${e.resource.resourceType}: ${p}`);
        }
      }
    }
    expect(problems).toEqual([]);
    // 245 before OBR-15 made a Specimen of an order without SPM (MDM_T02, ORM_O01, ORM_O01-no-patient)
    // and the ROL/PRT after a PID the patient's CareTeam (ADT_A01, A02, A05, A06), and a PRT-10 a Device
    // (OML_O21, ORU_R01, VXU_V04); 265 since a PRT of an OBX with PRT-9/14 makes a Location (OML_O21,
    // ORU_R01, VXU_V04), a PRT of the patient a RelatedPerson (OML_O21, ORU_R01), TXA-8 a Provenance
    // (MDM_T02), and ORU_R01's OBR sees its ORC across the ORC's PRT (its Practitioner, ORC-12).
    expect(resources).toBe(265);
  });
});
