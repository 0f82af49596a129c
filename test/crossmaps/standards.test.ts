// The standard definitions in crossmaps/standards/ and the built-in crossmaps agree: every source field a
// crossmap reads and every target element it writes exists in the standard it claims, so a typo such as
// `visit_occurence` or `Encounter.clas` fails here instead of silently mapping nothing.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { BUILTIN_DIR, listBuiltinCrossmaps } from "../../src/crossmap/catalog.js";
import { loadCrossmapFile } from "../../src/crossmap/load.js";
import { loadStandard } from "../../src/crossmap/standards.js";
import { FIXTURES_DIR } from "../support/omop.js";

// FHIR JSON keeps the extensions of a primitive element `x` in `_x` (Patient._birthDate), which is element x.
const head = (path: string): string => (path.split(/[.[]/)[0] ?? path).replace(/^_/, "");

/** Source fields read on purpose although the standard's entity lacks them, with the reason. */
const EXTRA_SOURCE_FIELDS = new Set([
  // person -> Patient.deceasedDateTime when the caller joins DEATH onto PERSON (documented in the crossmap).
  "omop_cdm_v5.4:person.death_datetime",
  "omop_cdm_v5.4:person.death_date",
]);

describe("standard definitions", () => {
  it("has OMOP CDM v5.4 exactly as the reference CSV lists it", () => {
    const csv = join(FIXTURES_DIR, "reference", "omop", "OMOP_CDMv5.4_Field_Level.csv");
    const rows = Papa.parse<Record<string, string>>(readFileSync(csv, "utf8").replace(/^\uFEFF/, ""), {
      header: true,
      skipEmptyLines: true,
    }).data;
    const omop = loadStandard("omop_cdm_v5.4");
    const fields = Object.entries(omop?.entities ?? {}).flatMap(([t, e]) =>
      e.fields.map((f) => ({ t, ...f })),
    );
    expect(fields.length).toBe(rows.length);
    expect(fields.find((f) => f.t === "person" && f.name === "person_id")).toEqual({
      t: "person",
      name: "person_id",
      required: true,
      type: "integer",
    });
    expect(fields.find((f) => f.t === "measurement" && f.name === "value_as_number")).toMatchObject({
      required: false,
      type: "float",
    });
  });

  it("has the FHIR resources and openEHR classes the crossmaps target", () => {
    expect(Object.keys(loadStandard("fhir_r4")?.entities ?? {}).sort()).toEqual([
      "AllergyIntolerance",
      "Claim",
      "Condition",
      "Coverage",
      "DeviceUseStatement",
      "DiagnosticReport",
      "DocumentReference",
      "Encounter",
      "EpisodeOfCare",
      "ExplanationOfBenefit",
      "Immunization",
      "Location",
      "MedicationRequest",
      "MedicationStatement",
      "Observation",
      "Organization",
      "Patient",
      "Practitioner",
      "Procedure",
      "Specimen",
    ]);
    const observation = loadStandard("fhir_r4")?.entities.Observation?.fields ?? [];
    expect(observation.find((f) => f.name === "status")).toEqual({
      name: "status",
      required: true,
      type: "code",
    });
    expect(observation.find((f) => f.name === "valueQuantity")).toEqual({
      name: "valueQuantity",
      type: "Quantity",
    });
    expect(Object.keys(loadStandard("openehr_1.0.4")?.entities ?? {})).toEqual([
      "PERSON",
      "COMPOSITION",
      "EVALUATION",
      "OBSERVATION",
      "INSTRUCTION",
      "ACTION",
      "EHR_STATUS",
    ]);
  });

  for (const entry of listBuiltinCrossmaps().filter((e) => !e.source.startsWith("hl7v2"))) {
    it(`${entry.file} reads and writes only fields its standards define`, async () => {
      const cm = await loadCrossmapFile(join(BUILTIN_DIR, entry.file));
      const source = loadStandard(cm.source);
      const target = loadStandard(cm.target);
      expect(source && target).toBeTruthy();
      const unknown: string[] = [];
      const common = (std: typeof source) => std?.common_fields ?? [];
      // As `crossmap check`: an entry marked nonstandard names what its standards lack on purpose.
      for (const f of cm.fieldMappings().filter((m) => m.nonstandard !== true)) {
        const srcFields = new Set([
          // A field's alias is a name the readers accept too (CDM v5.3's name of a field v5.4 renamed).
          ...(source?.entities[f.sourceEntity]?.fields.flatMap((x) =>
            x.alias ? [x.name, x.alias] : [x.name],
          ) ?? []),
          ...common(source),
        ]);
        if (!source?.entities[f.sourceEntity]) unknown.push(`source entity ${f.sourceEntity}`);
        // $param and $id are the language's own names, not fields of the source.
        for (const s of [...f.sources, ...f.reads].filter((p) => !p.startsWith("$"))) {
          const name = `${cm.source}:${f.sourceEntity}.${head(s)}`;
          if (!srcFields.has(head(s)) && !EXTRA_SOURCE_FIELDS.has(name)) unknown.push(name);
        }
        // The target starts with the output's name; the entity is the output's target.
        const [entity, path] = [f.targetEntity, f.target.slice(f.target.indexOf(".") + 1)];
        const tgtFields = new Set([
          ...(target?.entities[entity]?.fields.map((x) => x.name) ?? []),
          ...common(target),
        ]);
        if (!tgtFields.has(head(path))) unknown.push(`${cm.target}:${entity}.${head(path)}`);
      }
      expect([...new Set(unknown)]).toEqual([]);
    });
  }
});
