// `unread_column` through the CLI with the built-in crossmaps, for FHIR NDJSON, a FHIR Bundle and OMOP
// NDJSON (OMOP CSV: map-cdm53.int.test.ts): one warning per file and entity, in --errors and the summary;
// a crossmap's not_mapped elements (a Patient's name and telecom to OMOP) and FHIR's common fields (meta)
// are not named.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const tmp = mkdtempSync(join(tmpdir(), "crossmap-unread-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const ndjson = (rows: unknown[]) => `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`;
const readNdjson = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
const message = (from: string, to: string) =>
  `not read by the ${from} -> ${to} crossmap: the values in this file are not mapped (reported once per file and entity)`;
const warning = { code: "unread_column", severity: "warning" };

/** Maps `input` into a fresh folder; the run's issues and summary. */
async function map(name: string, args: string[], input: string) {
  const dir = join(tmp, name);
  const r = await runCli([
    "map",
    "-q",
    ...args,
    "--out-dir",
    join(dir, "out"),
    "--errors",
    join(tmp, `${name}.errors.ndjson`),
    "--summary",
    join(tmp, `${name}.summary.json`),
    input,
  ]);
  expect(r.code, r.stderr).toBe(0);
  return {
    issues: readNdjson(join(tmp, `${name}.errors.ndjson`)),
    summary: JSON.parse(readFileSync(join(tmp, `${name}.summary.json`), "utf8")),
  };
}

describe("crossmap map names the input columns the crossmap does not read", () => {
  it("FHIR NDJSON: each element once per file, a later record's new one in one more warning", async () => {
    const file = join(tmp, "patients.ndjson");
    writeFileSync(
      file,
      ndjson([
        {
          resourceType: "Patient",
          id: "p1",
          gender: "female",
          birthDate: "1970-01-01",
          meta: { versionId: "1" },
          name: [{ family: "Ng" }],
          photo: [{ url: "http://example.org/p1.png" }],
        },
        {
          resourceType: "Patient",
          id: "p2",
          gender: "male",
          birthDate: "1980-02-02",
          photo: [{ url: "http://example.org/p2.png" }],
          link: [{ other: { reference: "Patient/p1" }, type: "seealso" }],
        },
      ]),
    );
    const { issues, summary } = await map("fhir-ndjson", ["--from", "fhir", "--to", "omop"], file);
    const at = { file, entity: "Patient" };
    expect(issues).toEqual([
      { ...at, line: 1, field: "Patient.photo", ...warning, message: message("fhir_r4", "omop_cdm_v5.4") },
      { ...at, line: 2, field: "Patient.link", ...warning, message: message("fhir_r4", "omop_cdm_v5.4") },
    ]);
    expect(summary).toMatchObject({ records_in: 2, warnings: 2, issues_by_code: { unread_column: 2 } });
  });

  it("FHIR NDJSON: does not name the workflow states OMOP has no column for (declared not_mapped)", async () => {
    const file = join(tmp, "states.ndjson");
    const subject = { reference: "Patient/p1" };
    writeFileSync(
      file,
      ndjson([
        {
          resourceType: "DocumentReference",
          id: "d1",
          status: "current",
          docStatus: "final",
          subject,
          date: "2020-01-01T10:00:00Z",
          type: { text: "note" },
          content: [{ attachment: { contentType: "text/plain", data: "aGk=" } }],
        },
        {
          resourceType: "AllergyIntolerance",
          id: "a1",
          clinicalStatus: { coding: [{ code: "active" }] },
          verificationStatus: { coding: [{ code: "confirmed" }] },
          patient: subject,
          code: { coding: [{ system: "http://snomed.info/sct", code: "300916003" }] },
          recordedDate: "2020-01-01",
        },
        {
          resourceType: "MedicationStatement",
          id: "m1",
          status: "active",
          subject,
          medicationCodeableConcept: {
            coding: [{ system: "http://www.nlm.nih.gov/research/umls/rxnorm", code: "1049221" }],
          },
          effectiveDateTime: "2020-01-01",
        },
      ]),
    );
    const { issues } = await map("fhir-states", ["--from", "fhir", "--to", "omop"], file);
    expect(issues).toEqual([]);
  });

  it("FHIR Bundle: per resource type, several elements of an entry in one warning", async () => {
    const file = join(tmp, "bundle.json");
    const bundle = {
      resourceType: "Bundle",
      type: "collection",
      entry: [
        {
          fullUrl: "urn:uuid:p1",
          resource: {
            resourceType: "Patient",
            id: "p1",
            gender: "female",
            birthDate: "1970-01-01",
            telecom: [{ system: "phone", value: "1" }],
            photo: [{ url: "http://example.org/p1.png" }],
          },
        },
        {
          fullUrl: "urn:uuid:e1",
          resource: {
            resourceType: "Encounter",
            id: "e1",
            status: "finished",
            class: { system: "http://terminology.hl7.org/CodeSystem/v3-ActCode", code: "AMB" },
            subject: { reference: "urn:uuid:p1" },
            period: { start: "2020-01-01T10:00:00Z", end: "2020-01-01T11:00:00Z" },
            reasonCode: [{ text: "check-up" }],
            priority: { text: "routine" },
          },
        },
      ],
    };
    writeFileSync(file, JSON.stringify(bundle, null, 2));
    const { issues, summary } = await map(
      "fhir-bundle",
      ["--from", "fhir", "--to", "omop", "--format", "fhir-bundle"],
      file,
    );
    const text = message("fhir_r4", "omop_cdm_v5.4");
    expect(issues).toEqual([
      { file, entry: 0, entity: "Patient", field: "Patient.photo", ...warning, message: text },
      {
        file,
        entry: 1,
        entity: "Encounter",
        field: "Encounter.reasonCode, Encounter.priority",
        ...warning,
        message: text,
      },
    ]);
    expect(summary).toMatchObject({ records_in: 2, warnings: 2, issues_by_code: { unread_column: 2 } });
  });

  it("OMOP NDJSON: a key no field mapping reads, once per file", async () => {
    const file = join(tmp, "person.ndjson");
    writeFileSync(
      file,
      ndjson([
        { person_id: 1, gender_concept_id: 8507, year_of_birth: 1970, site_ward: "" },
        { person_id: 2, gender_concept_id: 8532, year_of_birth: 1980, site_ward: "B2" },
        { person_id: 3, gender_concept_id: 8532, year_of_birth: 1990, site_ward: "B3" },
      ]),
    );
    const { issues, summary } = await map(
      "omop-ndjson",
      ["--from", "omop", "--to", "fhir", "--entity", "person"],
      file,
    );
    expect(issues).toEqual([
      {
        file,
        line: 2,
        entity: "person",
        field: "person.site_ward",
        ...warning,
        message: message("omop_cdm_v5.4", "fhir_r4"),
      },
    ]);
    expect(summary).toMatchObject({ records_in: 3, warnings: 1, issues_by_code: { unread_column: 1 } });
  });
});
