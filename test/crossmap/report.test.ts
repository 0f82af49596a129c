import { describe, expect, it } from "vitest";
import { findBuiltinCrossmap, listBuiltinCrossmaps } from "../../src/crossmap/catalog.js";
import { loadCrossmapFile, parseCrossmap } from "../../src/crossmap/load.js";
import { mappingReport } from "../../src/crossmap/report.js";
import type { StandardDefinition } from "../../src/crossmap/standards.js";

const doc = `source: a
target: b
entity_map: {person: Patient}
constants: {Patient: {resourceType: Patient}}
field_map:
  person.person_id: {target: Patient.id, transform: str}
  person.birth: {target: Patient.birthDate, source: [birth_datetime, year_of_birth]}
`;
const omop: StandardDefinition = {
  standard: "a",
  entities: {
    person: {
      fields: [
        { name: "person_id" },
        { name: "birth_datetime" },
        { name: "year_of_birth" },
        { name: "race_concept_id" },
      ],
    },
  },
};
const fhir: StandardDefinition = {
  standard: "b",
  entities: {
    Patient: {
      fields: [
        { name: "resourceType" },
        { name: "id" },
        { name: "birthDate" },
        { name: "gender" },
        { name: "name" },
      ],
    },
  },
};

describe("mappingReport", () => {
  it("lists entity and field mappings and, with definitions, the unmapped fields on each side", () => {
    expect(mappingReport(parseCrossmap(doc), { source: omop, target: fhir })).toEqual({
      source: "a",
      target: "b",
      entity_mappings: [{ source_entity: "person", target_entity: "Patient" }],
      field_mappings: {
        count: 2,
        items: [
          { source: "person.person_id", target: "Patient.id", transform: "str" },
          { source: "person.birth", target: "Patient.birthDate", transform: "passthrough" },
        ],
      },
      unmapped_source_fields: ["person.race_concept_id"],
      not_mapped_source_fields: [],
      unmapped_target_fields: ["Patient.gender", "Patient.name"],
      definitions: { source: true, target: true },
    });
  });
  it("works without definitions and says so", () => {
    const r = mappingReport(parseCrossmap(doc));
    expect(r.unmapped_source_fields).toEqual([]);
    expect(r.definitions).toEqual({ source: false, target: false });
  });
});

describe("built-in catalog", () => {
  it("finds built-in crossmaps by their declared pair, and each loads", async () => {
    const entry = findBuiltinCrossmap("omop_cdm_v5.4", "fhir_r4");
    expect(entry?.file).toBe("omop_cdm_v5.4-to-fhir_r4.yaml");
    expect(entry?.entity_map.person).toBe("Patient");
    for (const e of listBuiltinCrossmaps()) {
      const cm = await loadCrossmapFile(e.path).catch((err) => {
        // Crossmaps that need a vocabulary are checked by the vocabulary tests.
        if (/no vocabulary bridge configured/.test(String(err?.describe?.() ?? err))) return undefined;
        throw err;
      });
      if (cm) expect(cm.source).toBe(e.source);
    }
  });
});

describe("mappingReport counts fields a transform reads from its config", () => {
  it("does not list a unit_field or display_field as unmapped", () => {
    const cm = parseCrossmap(`source: a
target: b
entity_map: {m: Observation}
field_map:
  m.value: {target: Observation.valueQuantity, transform: quantity, config: {unit_field: unit}}
`);
    const def: StandardDefinition = {
      standard: "a",
      entities: { m: { fields: [{ name: "value" }, { name: "unit" }, { name: "other" }] } },
    };
    expect(mappingReport(cm, { source: def }).unmapped_source_fields).toEqual(["m.other"]);
  });
});

describe("mappingReport and not_mapped", () => {
  it("lists the fields not_mapped declares apart from the gaps", () => {
    const cm = parseCrossmap(`source: a
target: b
entity_map: {m: Observation}
field_map:
  m.value: {target: Observation.valueString}
not_mapped:
  m: [status]
`);
    const def: StandardDefinition = {
      standard: "a",
      entities: { m: { fields: [{ name: "value" }, { name: "status" }, { name: "other" }] } },
    };
    const r = mappingReport(cm, { source: def });
    expect([r.unmapped_source_fields, r.not_mapped_source_fields]).toEqual([["m.other"], ["m.status"]]);
  });
});
