// The HL7 tables the built-in HL7 v2 -> FHIR crossmap maps with the v2-to-FHIR IG's ConceptMaps, and how
// a ConceptMap CSV becomes a value map. Shared by scripts/gen-hl7v2-value-maps.mjs (writes the crossmap)
// and test/crossmaps/hl7v2-value-maps.test.ts (checks it), so the two cannot disagree.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Papa from "papaparse";

/**
 * name: the transform in the crossmap; csv: the ConceptMap (file `HL7 Concept Map_ <csv> - Sheet1.csv`);
 * shape: what a code becomes (`code` a string, `coding`, `concept` a CodeableConcept, `boolean`);
 * extra: codes the IG leaves unmapped that FHIR still needs a value for, each with its reason.
 */
export const MAPS = [
  { name: "table0001", csv: "AdministrativeSex", shape: "code", about: "HL7 table 0001 (administrative sex) -> Patient.gender" },
  {
    name: "table0002",
    csv: "MaritalStatus",
    shape: "concept",
    about: "HL7 table 0002 (marital status) -> Patient.maritalStatus (v3 MaritalStatus)",
  },
  {
    name: "table0003",
    csv: "Event[EncounterStatus]",
    shape: "code",
    about: "HL7 table 0003 (trigger event, MSH-9.2) -> Encounter.status",
    default: "unknown",
  },
  {
    name: "table0004",
    csv: "PatientClass[EncounterClass]",
    shape: "coding",
    about: "HL7 table 0004 (patient class) -> Encounter.class",
  },
  {
    name: "table0004_status",
    csv: "PatientClass[EncounterStatus]",
    shape: "code",
    about: "HL7 table 0004 (patient class, PV1-2) -> Encounter.status while PV1-45 (discharge) is not valued",
    default: "unknown",
    reasons: { "(any other)": "a patient class outside table 0004: unknown, since FHIR requires a status" },
  },
  { name: "table0038", csv: "OrderStatus", shape: "code", about: "HL7 table 0038 (order status, ORC-5) -> request status" },
  { name: "table0063", csv: "Relationship", shape: "concept", about: "HL7 table 0063 (relationship) -> RelatedPerson.relationship" },
  {
    name: "table0085",
    csv: "ObservationResultStatusCodesInterpretation",
    shape: "code",
    about: "HL7 table 0085 (observation result status, OBX-11) -> Observation.status",
    extra: {
      B: "final",
      I: "registered",
      N: "cancelled",
      O: "registered",
      R: "preliminary",
      S: "preliminary",
      U: "final",
      V: "final",
      OBX: "unknown",
    },
    reasons: {
      "B, U, V": "appended, changed to final, verified: the result is final",
      "I, O": "specimen in lab / order received, no result yet: registered",
      N: "not asked: cancelled",
      "R, S": "entered not verified / partial: preliminary",
      OBX: "OBX-11 not valued (v2.5.1 requires it): unknown, since FHIR requires a status",
    },
  },
  {
    name: "table0119",
    csv: "OrderControlCode[ServiceRequest.status]",
    shape: "code",
    about: "HL7 table 0119 (order control, ORC-1) -> request status",
    extra: { RXE: "unknown", RXO: "unknown", OBR: "unknown" },
    default: "unknown",
    reasons: {
      "RXE, RXO, OBR": "an order without an ORC says nothing of its status: unknown (FHIR requires one)",
      "(any other)": "a control code that states no order status (SC status changed, OK, UA ...): unknown",
    },
  },
  {
    name: "table0123",
    csv: "ResultStatus[Non-Queries]",
    shape: "code",
    about: "HL7 table 0123 (result status, OBR-25) -> DiagnosticReport.status",
    extra: { A: "partial", Y: "unknown", Z: "unknown", M: "partial", N: "registered", OBR: "unknown" },
    reasons: {
      "A, M": "some, not all results: partial",
      "Y, Z": "no order / no record of the patient: unknown",
      N: "procedure not done yet: registered",
      OBR: "OBR-25 not valued: unknown, since FHIR requires a status",
    },
  },
  {
    name: "table0127",
    csv: "AllergenType[AllergyIntoleranceCategory]",
    shape: "code",
    about: "HL7 table 0127 (allergen type) -> AllergyIntolerance.category (MA, MC have none)",
  },
  {
    name: "table0128",
    csv: "AllergySeverity[AllergyIntolerance.criticality]",
    shape: "code",
    about: "HL7 table 0128 (allergy severity) -> AllergyIntolerance.criticality",
  },
  { name: "table0131", csv: "ContactRole", shape: "concept", about: "HL7 table 0131 (contact role, NK1-7) -> RelatedPerson.relationship" },
  { name: "table0136", csv: "YesNoIndicator", shape: "boolean", about: "HL7 table 0136 (yes/no indicator) -> boolean" },
  {
    name: "table0278",
    csv: "FillerStatusCodes[Appointment]",
    shape: "code",
    about: "HL7 table 0278 (filler status, SCH-25) -> Appointment.status",
    extra: { S12: "booked", S13: "booked", S14: "booked", S15: "cancelled", S16: "cancelled", S17: "entered-in-error", S26: "noshow" },
    reasons: {
      "S12-S17, S26": "without SCH-25, the trigger event (MSH-9.2) says it: booked, rescheduled or modified (booked), cancelled or discontinued, deleted, no-show",
    },
  },
  {
    name: "table0322",
    csv: "CompletionStatus",
    shape: "code",
    about: "HL7 table 0322 (completion status, RXA-20) -> Immunization.status",
    extra: { RXA: "completed" },
    reasons: { RXA: "RXA-20 not valued means complete (v2.5.1)" },
  },
  {
    name: "table0443",
    csv: "ProviderRole",
    shape: "concept",
    about: "HL7 table 0443 (provider role, ROL-3) -> participant type (v3 ParticipationType)",
  },
  {
    name: "identifier",
    csv: "IdentifierType",
    shape: "identifier",
    about: "CX -> Identifier; CX-5 a v2-0203 coding only when it is a table 0203 code (else its text)",
  },
];

/** `{mapping}` (source code -> FHIR value, extras added) or, for the identifier map, `{identifierTypes}`. */
export function readConceptMap(dir, m) {
  const path = join(dir, "codesystems", `HL7 Concept Map_ ${m.csv} - Sheet1.csv`);
  const rows = Papa.parse(readFileSync(path, "utf8"), { skipEmptyLines: true }).data.slice(2);
  if (m.shape === "identifier") {
    return { identifierTypes: [...new Set(rows.map((r) => r[0].trim()).filter(Boolean))] };
  }
  const mapping = {};
  for (const r of rows) {
    const cell = (i) => (r[i] ?? "").trim();
    const code = cell(0);
    const target = cell(6);
    if (!code || !target || code in mapping) continue;
    const display = cell(8);
    const system = cell(9);
    mapping[code] =
      m.shape === "code"
        ? target
        : m.shape === "boolean"
          ? target === "true"
          : m.shape === "coding"
            ? { system, code: target, ...(display ? { display } : {}) }
            : { coding: [{ system, code: target, ...(display ? { display } : {}) }] };
  }
  for (const [k, v] of Object.entries(m.extra ?? {})) if (!(k in mapping)) mapping[k] = v;
  return { mapping };
}
