// Input columns the crossmap does not read (unread.ts), through the real stage and a real crossmap: NDJSON
// keys, FHIR resources' top-level elements (not the standard's common fields), JSON array elements; one
// warning per file and entity naming its columns, also across workers; a crossmap's not_mapped columns.
import { describe, expect, it } from "vitest";
import { parseCrossmap } from "../../src/crossmap/load.js";
import { composePlan } from "../../src/pipeline/plan.js";
import { createBatchMapper } from "../../src/pipeline/stage.js";
import type { Batch, RunIssue } from "../../src/pipeline/types.js";
import { keepFirstUnread } from "../../src/pipeline/unread.js";
import { loadError } from "../helpers.js";

const YAML = `
source: fhir_r4
target: omop_cdm_v5.4
entity_map:
  Patient: person
field_map:
  Patient.id: {target: person.person_source_value}
  Patient.gender: {target: person.gender_source_value}
  Patient.birthDate: {target: person.birth_datetime, when: {field: deceasedBoolean, present: false}}
`;
const plan = composePlan([parseCrossmap(YAML, { file: "patient.yaml" })]);
const stage = () => createBatchMapper(plan, { onError: "skip", perEntity: false });
const lines = (file: string, text: string, bundles = false): Batch => ({
  kind: "lines",
  file,
  entity: bundles ? undefined : "Patient",
  bundles,
  firstLine: 1,
  text,
});
const unread = (issues: RunIssue[]) =>
  issues.filter((i) => i.code === "unread_column").map((i) => [i.file, i.line ?? i.entry, i.field]);

describe("unread_column", () => {
  it("names each NDJSON key holding a value that nothing reads, once per file, at its first record", () => {
    const text = [
      '{"resourceType":"Patient","id":"a","gender":"male","name":""}',
      '{"resourceType":"Patient","id":"b","name":[{"family":"Ng"}],"deceasedBoolean":false,"photo":null}',
      '{"resourceType":"Patient","id":"c","name":[{"family":"Li"}],"telecom":[{"value":"1"}]}',
    ].join("\n");
    const r = stage()(lines("p.ndjson", text));
    expect(unread(r.issues)).toEqual([
      ["p.ndjson", 2, "Patient.name"],
      ["p.ndjson", 3, "Patient.telecom"],
    ]);
    expect(r.issues[0]).toEqual({
      file: "p.ndjson",
      line: 2,
      entity: "Patient",
      field: "Patient.name",
      code: "unread_column",
      severity: "warning",
      message:
        "not read by the fhir_r4 -> omop_cdm_v5.4 crossmap: the values in this file are not mapped (reported once per file and entity)",
    });
  });

  it("names a record's unread columns in one warning, and only the new ones of a later record", () => {
    const text = [
      '{"resourceType":"Patient","id":"a","name":[{"family":"Ng"}],"telecom":[{"value":"1"}]}',
      '{"resourceType":"Patient","id":"b","name":[{"family":"Li"}],"telecom":[{"value":"2"}]}',
      '{"resourceType":"Patient","id":"c","telecom":[{"value":"3"}],"photo":[{"url":"x"}],"link":[{}]}',
    ].join("\n");
    expect(unread(stage()(lines("p.ndjson", text)).issues)).toEqual([
      ["p.ndjson", 1, "Patient.name, Patient.telecom"],
      ["p.ndjson", 3, "Patient.photo, Patient.link"],
    ]);
  });

  it("does not name the columns the crossmap declares not_mapped", () => {
    const declared = composePlan([
      parseCrossmap(`${YAML}not_mapped:\n  Patient: [name, telecom]\n`, { file: "patient.yaml" }),
    ]);
    const text = '{"resourceType":"Patient","id":"a","name":[{"family":"Ng"}],"telecom":[{}],"photo":[{}]}';
    const r = createBatchMapper(declared, { onError: "skip", perEntity: false })(lines("p.ndjson", text));
    expect(unread(r.issues)).toEqual([["p.ndjson", 1, "Patient.photo"]]);
  });

  it("refuses not_mapped for an entity entity_map does not map, located", () => {
    expect(loadError(`${YAML}not_mapped:\n  Pateint: [name]\n`, "patient.yaml")).toBe(
      'crossmap patient.yaml is invalid (1 problem)\n  patient.yaml:11:3: not_mapped.Pateint: not_mapped for "Pateint", which is no entity_map source entity (entities: Patient)',
    );
  });

  it("keeps the first of each file's column when several workers saw it", () => {
    const text = '{"resourceType":"Patient","id":"a","name":[{"family":"Ng"}]}';
    const more = '{"resourceType":"Patient","id":"b","name":[{"family":"Li"}],"photo":[{}]}';
    const first = keepFirstUnread();
    const fromA = first(stage()(lines("p.ndjson", text)).issues);
    const fromB = first(stage()(lines("p.ndjson", text)).issues);
    const fromC = first(stage()(lines("p.ndjson", more)).issues);
    expect([unread(fromA), unread(fromB), unread(fromC)]).toEqual([
      [["p.ndjson", 1, "Patient.name"]],
      [],
      [["p.ndjson", 1, "Patient.photo"]],
    ]);
  });
});
