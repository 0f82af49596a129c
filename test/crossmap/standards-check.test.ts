// `crossmap check`'s names check: source and target names a standard definition lacks are located
// warnings with a suggestion; standards without a definition, and entities whose fields are not listed,
// are not checked; and every problem of a document (schema, compile, names) is reported in one pass.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILTIN_DIR, listBuiltinCrossmaps } from "../../src/crossmap/catalog.js";
import { analyseCrossmap, parseCrossmap } from "../../src/crossmap/load.js";
import { formatProblem, type Problem } from "../../src/errors.js";

const lines = (problems: Problem[]): string[] => problems.map(formatProblem);
const analyse = (text: string) => analyseCrossmap(text, { file: "x.yaml", standards: true });

const OMOP_FHIR = "source: omop_cdm_v5.4\ntarget: fhir_r4\n";

describe("names checked against crossmaps/standards/", () => {
  it("reports a misspelt source field and target element with file:line:column, key and a suggestion", () => {
    const text = `${OMOP_FHIR}entity_map:\n  person: Patient\nfield_map:\n  person.person_id: {target: Patient.id, transform: str}\n  person.gender_concpt_id:\n    target: Patient.gendr\n`;
    const a = analyse(text);
    expect(a.errors).toEqual([]);
    expect(a.crossmap).toBeDefined();
    expect(lines(a.warnings)).toEqual([
      'x.yaml:7:3: warning: field_map["person.gender_concpt_id"]: person has no field "gender_concpt_id" in omop_cdm_v5.4 (did you mean "gender_concept_id"?)',
      'x.yaml:8:13: warning: field_map["person.gender_concpt_id"].target: Patient has no field "gendr" in fhir_r4 (did you mean "gender"?)',
    ]);
    expect(a.warnings[0]).toMatchObject({ code: "unknown_field", severity: "warning", line: 7, column: 3 });
  });

  it("checks the columns not_mapped declares", () => {
    const text = `${OMOP_FHIR}entity_map:\n  person: Patient\nfield_map:\n  person.person_id: {target: Patient.id, transform: str}\nnot_mapped:\n  person: [race_concept_id, race_concpt_id]\n`;
    const a = analyse(text);
    expect(lines(a.errors)).toEqual([]);
    expect(lines(a.warnings)).toEqual([
      'x.yaml:8:29: warning: not_mapped.person[1]: person has no field "race_concpt_id" in omop_cdm_v5.4 (did you mean "race_concept_id"?)',
    ]);
  });

  it("checks the fields exclude conditions read", () => {
    const text = `${OMOP_FHIR}entity_map:\n  person: Patient\nfield_map:\n  person.person_id: {target: Patient.id, transform: str}\nexclude:\n  person:\n    - {when: {field: race_concpt_id, equals: 0}, reason: r}\n`;
    const a = analyse(text);
    expect(lines(a.errors)).toEqual([]);
    expect(lines(a.warnings)).toEqual([
      'x.yaml:9:22: warning: exclude.person[0].when.field: person has no field "race_concpt_id" in omop_cdm_v5.4 (did you mean "race_concept_id"?)',
    ]);
  });

  it("checks entity names, declared sources, constants and paths read from a transform's config", () => {
    const text = [
      "source: fhir_r4",
      "target: omop_cdm_v5.4",
      "entity_map:",
      "  Observaton: measurement",
      "  Patient:",
      "    target: persn",
      "    constants: {gendr_concept_id: 0}",
      "  Observation:",
      "    target: measurement",
      "    constants: {measurement_type_concept_id: 32817, unit_concpt_id: 0}",
      "field_map:",
      "  Observation.value:",
      "    target: measurement.value_as_number",
      "    source: [valueQuantity.value, valueQuantty.value]",
      "  Observation.valueQuantity:",
      "    target: measurement.unit_source_value",
      "    transform: quantity",
      "    config: {unit_field: valueQuantity.unt}",
      "",
    ].join("\n");
    const a = analyse(text);
    expect(lines(a.errors)).toEqual([]);
    expect(lines(a.warnings)).toEqual([
      'x.yaml:4:3: warning: entity_map.Observaton: "Observaton" is not an entity of fhir_r4 (did you mean "Observation"?)',
      'x.yaml:6:13: warning: entity_map.Patient.target: "persn" is not an entity of omop_cdm_v5.4 (did you mean "person"?)',
      'x.yaml:10:53: warning: entity_map.Observation.constants.unit_concpt_id: measurement has no field "unit_concpt_id" in omop_cdm_v5.4 (did you mean "unit_concept_id"?)',
      'x.yaml:14:35: warning: field_map["Observation.value"].source[1]: Observation has no field "valueQuantty" in fhir_r4 (did you mean "valueQuantity"?)',
    ]);
  });

  it("knows every FHIR resource type by name, and the elements every resource has", () => {
    const text = `${OMOP_FHIR}entity_map:\n  provider: PractitionerRole\n  person: Patient\nfield_map:\n  provider.provider_name: {target: PractitionerRole.nme}\n  person.person_id: {target: Patient.meta.versionId, transform: str}\n`;
    // PractitionerRole's elements are not listed: the resource is known, its fields are not checked.
    expect(analyse(text).warnings).toEqual([]);
  });

  it("is off for standards without a definition, and for entries marked nonstandard", () => {
    expect(
      analyse("source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.a: {target: T.b}\n").warnings,
    ).toEqual([]);
    const text = `${OMOP_FHIR}entity_map:\n  person: Patient\nfield_map:\n  person.death:\n    target: Patient.deceasedDateTime\n    source: [death_datetime]\n    nonstandard: true\n`;
    expect(analyse(text).warnings).toEqual([]);
  });

  it("is not run when a crossmap is loaded for mapping without asking for it", () => {
    const text = `${OMOP_FHIR}entity_map:\n  person: Patient\nfield_map:\n  person.gender_concpt_id: {target: Patient.gendr}\n`;
    expect(parseCrossmap(text).mapper("person").map({ gender_concpt_id: 1 }).value).toEqual({ gendr: 1 });
    const warnings: Problem[] = [];
    parseCrossmap(text, { file: "x.yaml", warnings });
    expect(warnings.map((w) => w.code)).toEqual(["unknown_field", "unknown_field"]);
  });

  for (const entry of listBuiltinCrossmaps()) {
    it(`the built-in ${entry.file} has no warnings`, () => {
      const a = analyse(readFileSync(join(BUILTIN_DIR, entry.file), "utf8"));
      expect(lines(a.errors)).toEqual([]);
      expect(lines(a.warnings)).toEqual([]);
    });
  }
});

describe("every problem of a document in one pass", () => {
  it("reports schema problems, compile problems of the rest, and names the standard lacks together", () => {
    const text = [
      OMOP_FHIR.trimEnd(),
      "description: [not, text]",
      "entity_map:",
      "  person: Patient",
      "  visit_occurrence: {target: Encounter, constans: {}}",
      "  death: {targt: Observation}",
      "field_map:",
      "  person.person_id: {target: Patient.id, transfrom: str}",
      "  person.year_of_birth: {target: Patient.birthDate, transform: fhir_datee}",
      "  person.gender_concept_id: {target: Patient.gendr}",
      "  visit_occurrence.visit_occurrence_id: {target: Encounter.id, transform: str, required: maybe}",
      "  death.person_id: {target: Observation.subject, transform: nope}",
      "",
    ].join("\n");
    const a = analyse(text);
    expect(a.crossmap).toBeUndefined();
    expect(lines(a.errors)).toEqual([
      "x.yaml:3:14: description: Invalid input: expected string, received array",
      'x.yaml:9:42: field_map["person.person_id"].transfrom: unknown key "transfrom"',
      'x.yaml:12:41: field_map["visit_occurrence.visit_occurrence_id"]: Invalid input',
      // entity_map values are checked output by output when compiling, with their own messages
      'x.yaml:6:41: entity_map.visit_occurrence.constans: unknown key "constans"',
      'x.yaml:7:10: entity_map.death.target: "target" is required',
      'x.yaml:7:11: entity_map.death.targt: unknown key "targt"',
      'x.yaml:10:64: field_map["person.year_of_birth"].transform: unknown transform "fhir_datee" (did you mean "fhir_date"?); known: base64, bool, chain, codeable_concept, components, constant, date_from_parts, date_part, datetime_text, derived_id, dv_coded_text, dv_coded_text_from_coding, dv_date_time, dv_proportion, dv_quantity, dv_text, extension_value, fhir_date, fhir_extension, fhir_period, fhir_reference, first_of, float, format, hl7v2_field, int, integer_id, omop_codeable_concept, omop_concept_of, omop_quantity, openehr_element, passthrough, quantity, report, select, str, value_map, vocabulary_lookup, vocabulary_reverse_lookup',
    ]);
    expect(lines(a.warnings)).toEqual([
      'x.yaml:11:38: warning: field_map["person.gender_concept_id"].target: Patient has no field "gendr" in fhir_r4 (did you mean "gender"?)',
    ]);
  });

  it("goes on past duplicate keys", () => {
    const a = analyse(
      `${OMOP_FHIR}entity_map:\n  person: Patient\nfield_map:\n  person.person_id: {target: Patient.id}\n  person.person_id: {target: Patient.id, transform: strr}\n`,
    );
    expect(lines(a.errors)).toEqual([
      "x.yaml:7:3: Map keys must be unique",
      expect.stringContaining(
        'x.yaml:7:53: field_map["person.person_id"].transform: unknown transform "strr"',
      ),
    ]);
  });
});
