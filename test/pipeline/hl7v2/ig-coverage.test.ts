// The built-in HL7 v2 -> FHIR crossmap measured against the v2-to-FHIR IG's own message maps
// (test/fixtures/hl7v2/v2-to-fhir-ig/messages/): every row (message structure x segment -> resource) is
// checked on a test message holding that segment (test/fixtures/hl7v2/ig-coverage/<message>.hl7), and the
// resulting table must be exactly the one in docs/hl7v2.md (`UPDATE_IG_COVERAGE=1` rewrites it). A row the
// crossmap does not produce needs its reason below; a reason for a row it does produce is stale and fails.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { findBuiltinCrossmap } from "../../../src/crossmap/catalog.js";
import { loadCrossmapFile } from "../../../src/crossmap/load.js";
import {
  type IgCoverage,
  igCoverage,
  igCoverageTable,
  igRows,
  type Reason,
} from "../../support/hl7v2-ig-coverage.js";
import { FIXTURES_DIR } from "../../support/omop.js";

const DOC_URL = new URL("../../../docs/hl7v2.md", import.meta.url);
const START = "<!-- ig-coverage:start -->";
const END = "<!-- ig-coverage:end -->";

const PROVENANCE =
  "not written: the MessageHeader names the message's source, sender and software, and a Provenance of the conversion itself would carry the time of each run, so the same message would no longer give the same Bundle (decision, see Ids)";

/** Why each row the crossmap does not produce is so (the IG's own condition, or a decision). */
const REASONS: Reason[] = [
  { segment: "MSH", resource: "Provenance", why: PROVENANCE },
  { segment: "SFT", resource: "Provenance", why: `${PROVENANCE}; the software is a Device of its own` },
  { segment: "ORC", resource: "Provenance", why: PROVENANCE },
  { segment: "SCH", resource: "Provenance", why: PROVENANCE },
  {
    segment: "MSH",
    resource: "Encounter",
    why: "written by the PV1's Encounter, which reads the trigger event: an A11's Encounter is cancelled (test/pipeline/hl7v2/encounter.test.ts); the MSH alone makes none",
  },

  {
    segment: "IN3",
    resource: "Coverage",
    why: "decision: the IG maps no field of IN3 into the Coverage (ORM_O01 names no segment map; OML_O21 names IN3[CareTeam], whose one field, IN3-21 the case manager, is a participant of the patient's CareTeam, made in every message)",
  },
  {
    segment: "NK1",
    resource: "Patient",
    why: "decision: every NK1 is a RelatedPerson (IG NK1[RelatedPerson]); Patient.contact would hold the same person twice",
  },
  {
    segment: "PV1",
    resource: "Basic",
    why: "not written: the IG's EncounterHistory is an R5 backport in a Basic; PV1-43 (prior temporary location) is not mapped",
  },
  {
    segment: "PV1",
    resource: "Coverage",
    why: "decision: R4 requires a Coverage's payor, which PV1 does not name (the IG's PV1[Coverage] writes only PV1-20, the financial class, as its type); the IN1 makes the Coverage",
  },
  {
    segment: "DG1",
    resource: "EpisodeOfCare",
    why: "decision: no EpisodeOfCare (the IG's DG1[EpisodeOfCare] writes only the diagnosis of an episode the message does not otherwise name)",
  },
  {
    segment: "OBR",
    resource: "Specimen",
    why: "decision: an order with SPM segments has its Specimens from them (IG SPM[Specimen]), as this test message does; the OBR's own specimen data (OBR-15 source, OBR-7/8, OBR-9, OBR-14) makes a Specimen for an order without SPM, as orders written before v2.5 are (test/pipeline/hl7v2/orders.test.ts), so one specimen is not two resources",
  },
  {
    segment: "OBR",
    resource: "SupplyRequest",
    why: "decision: the IG gives this row no SupplyRequest map (it names OBR[ServiceRequest]) and R4's SupplyRequest requires a quantity no OBR field gives; an order without a patient is reported (missing_required: ServiceRequest.subject) and not written",
  },
  {
    segment: "DG1",
    resource: "ServiceRequest",
    why: "written as a reference, which this check leaves aside: the DG1's Condition is the order's ServiceRequest.reasonReference (test/pipeline/hl7v2/orders.test.ts)",
  },
  {
    segment: "ODS",
    resource: "SupplyRequest",
    why: "decision: the IG gives this row no segment map and R4's SupplyRequest requires a quantity ODS does not give; an ODS (dietary order) is reported as an unmapped segment",
  },
  {
    segment: "ORC",
    resource: "Task",
    why: "the IG's own condition: a Task only \"when the receiving system is responsible for fulfillment of the ServiceRequest\", which the message does not say; the ServiceRequest carries the order's status (ORC-1, ORC-5)",
  },
  {
    segment: "ORC",
    resource: "ServiceRequest",
    why: "decision: a VXU's ORC is the vaccination's order, whose numbers are the Immunization's identifiers (IG ORC[Immunization]); a ServiceRequest is made per OBR only",
  },
];

let rows: IgCoverage[] = [];

beforeAll(async () => {
  const cm = await loadCrossmapFile(findBuiltinCrossmap("hl7v2_2.5.1", "fhir_r4")?.path ?? "");
  const ig = igRows(join(FIXTURES_DIR, "hl7v2", "v2-to-fhir-ig", "messages"));
  rows = igCoverage(ig, cm, join(FIXTURES_DIR, "hl7v2", "ig-coverage"), REASONS);
});

describe("coverage of the v2-to-FHIR IG's message maps", () => {
  it("reads every row of the IG's 13 message maps", () => {
    expect(new Set(rows.map((r) => r.message)).size).toBe(13);
    expect(rows.length).toBeGreaterThan(300);
  });

  it("gives every row the crossmap does not produce a reason, and no produced row one", () => {
    expect(
      rows.filter((r) => !r.shownBy && !r.why).map((r) => `${r.message} ${r.segment} -> ${r.resource}`),
    ).toEqual([]);
    const stale = REASONS.filter(
      (reason) =>
        !rows.some(
          (r) =>
            !r.shownBy &&
            r.segment === reason.segment &&
            r.resource === reason.resource &&
            (!reason.message || reason.message.test(r.message)),
        ),
    );
    expect(stale.map((r) => `${r.segment} -> ${r.resource}: ${r.why}`)).toEqual([]);
  });

  it("is the table in docs/hl7v2.md (UPDATE_IG_COVERAGE=1 rewrites it)", () => {
    const doc = readFileSync(DOC_URL, "utf8");
    const at = doc.indexOf(START);
    const end = doc.indexOf(END);
    expect(at).toBeGreaterThan(0);
    const table = `${START}\n${igCoverageTable(rows)}\n${END}`;
    if (process.env.UPDATE_IG_COVERAGE)
      writeFileSync(DOC_URL, doc.slice(0, at) + table + doc.slice(end + END.length));
    else expect(doc.slice(at, end + END.length)).toBe(table);
  });
});
