// Compiled mapper vs hand-written object construction for the same records, in one run.
// Prints a table and one JSON line. Usage: npx tsx bench/mapper.ts [records]
import { readFileSync } from "node:fs";
import { parseCrossmap } from "../src/crossmap/load.js";
import { deriveId } from "../src/transforms/derived-id.js";
import { idPart, stableInteger } from "../src/transforms/stable-id.js";

const N = Number(process.argv[2] ?? 1_000_000);
const here = new URL(".", import.meta.url);
const personMap = parseCrossmap(
  readFileSync(new URL("../test/golden/spec-person/crossmap.yaml", here), "utf8"),
);
const obsMap = parseCrossmap(
  readFileSync(new URL("../test/golden/fhir-observation/crossmap.yaml", here), "utf8"),
);

// The language's fan-out (for_each over components) and routing (choose), against hand-written code that
// builds the same rows with the same id functions.
const panelMap = parseCrossmap(
  readFileSync(new URL("../test/golden/lang-fhir-components/crossmap.yaml", here), "utf8"),
);
const routeMap = parseCrossmap(`source: fhir_r4
target: omop_cdm_v5.4
entity_map:
  Observation:
    - choose:
        - {target: measurement, when: {field: "category[0].coding[0].code", in: [vital-signs, laboratory]}}
        - {target: observation, when: {field: "category[0].coding[0].code", equals: survey}}
        - {target: condition_occurrence}
transforms:
  id: {type: integer_id}
field_map:
  Observation.id: {target: [measurement.measurement_id, observation.observation_id, condition_occurrence.condition_occurrence_id], transform: id}
  Observation.code.coding[0].code: {target: [measurement.measurement_source_value, observation.observation_source_value, condition_occurrence.condition_source_value]}
`);
const CATEGORIES = ["vital-signs", "laboratory", "survey", "exam"];
const panels = Array.from({ length: 10_000 }, (_, i) => ({
  resourceType: "Observation",
  id: `810b2c64-6e1c-4a1f-8bad-${String(i).padStart(12, "0")}`,
  subject: { reference: `urn:uuid:4e8ed886-fd5f-40bb-8feb-${String(i % 500).padStart(12, "0")}` },
  effectiveDateTime: "2012-02-27T05:28:45+00:00",
  category: [{ coding: [{ code: CATEGORIES[i % 4] }] }],
  code: { coding: [{ system: "http://loinc.org", code: "55284-4" }] },
  component: [
    { code: { coding: [{ code: "8462-4" }] }, valueQuantity: { value: 80 + (i % 20), unit: "mm[Hg]" } },
    { code: { coding: [{ code: "8480-6" }] }, valueQuantity: { value: 120 + (i % 30), unit: "mm[Hg]" } },
  ],
}));
type Panel = (typeof panels)[number];
const handPanel = (r: Panel) => {
  const person = stableInteger(idPart(r.subject.reference));
  const date = r.effectiveDateTime.slice(0, 10);
  return r.component.map((c, i) => ({
    measurement_id: deriveId([r.id], "component", "integer", i),
    person_id: person,
    measurement_date: date,
    measurement_source_value: c.code.coding[0]?.code,
    value_as_number: c.valueQuantity.value,
    unit_source_value: c.valueQuantity.unit,
  }));
};
const handRoute = (r: Panel) => {
  const category = r.category[0]?.coding[0]?.code;
  const id = stableInteger(r.id);
  const code = r.code.coding[0]?.code;
  if (category === "vital-signs" || category === "laboratory")
    return { entity: "measurement", value: { measurement_id: id, measurement_source_value: code } };
  if (category === "survey")
    return { entity: "observation", value: { observation_id: id, observation_source_value: code } };
  return {
    entity: "condition_occurrence",
    value: { condition_occurrence_id: id, condition_source_value: code },
  };
};

const GENDERS = [8507, 8532, 8551, 8570];
const persons = Array.from({ length: 10_000 }, (_, i) => ({
  person_id: 1_000_000 + i,
  gender_concept_id: GENDERS[i % 4],
  birth_datetime: `19${String(10 + (i % 89)).padStart(2, "0")}-0${1 + (i % 9)}-1${i % 9}`,
}));
const measurements = Array.from({ length: 10_000 }, (_, i) => ({
  measurement_id: i,
  person_id: 1_000_000 + (i % 500),
  measurement_source_value: "8302-2",
  measurement_vocabulary: "LOINC",
  value_as_number: 150 + (i % 50),
  unit_source_value: "cm",
  unit_code: "cm",
  measurement_datetime: "2020-03-01 09:30:00",
}));

const GENDER: Record<string, string> = { 8507: "male", 8532: "female", 8551: "other", 8570: "unknown" };
const handPerson = (r: (typeof persons)[number]) => ({
  id: String(r.person_id),
  gender: GENDER[String(r.gender_concept_id)],
  birthDate: r.birth_datetime.slice(0, 10),
});
const handObservation = (r: (typeof measurements)[number]) => ({
  resourceType: "Observation",
  status: "final",
  category: [
    {
      coding: [{ system: "http://terminology.hl7.org/CodeSystem/observation-category", code: "laboratory" }],
    },
  ],
  id: String(r.measurement_id),
  identifier: [{ value: String(r.measurement_id) }],
  code: { coding: [{ code: r.measurement_source_value, system: "http://loinc.org" }] },
  subject: { reference: `Patient/${r.person_id}` },
  valueQuantity: { value: Number(r.value_as_number), unit: r.unit_source_value, code: r.unit_code },
  effectivePeriod: { start: `${r.measurement_datetime.replace(" ", "T")}Z` },
});

let sink = 0;
/** A fresh loop per measurement (new Function), so one case's type feedback never slows another's. */
function time<T>(records: T[], fn: (r: T) => object): number {
  const loop = new Function(
    "records",
    "fn",
    "n",
    "let s = 0; for (let i = 0; i < n; i++) { const o = fn(records[i % records.length]); if (o.id !== undefined) s++; } return s;",
  ) as (records: T[], fn: (r: T) => object, n: number) => number;
  let best = 0;
  for (let round = 0; round < 3; round++) {
    sink += loop(records, fn, 50_000); // warm-up
    const t0 = process.hrtime.bigint();
    sink += loop(records, fn, N);
    best = Math.max(best, N / (Number(process.hrtime.bigint() - t0) / 1e9));
  }
  return best;
}

const pm = personMap.mapper("person");
const om = obsMap.mapper("measurement");
const panel = panelMap.mapper("Observation");
const route = routeMap.mapper("Observation");
const first = (outputs: { value: object }[]) => ({ id: outputs.length, value: outputs[0]?.value });
const rows = [
  {
    case: "person -> Patient (3 fields)",
    baseline: time(persons, handPerson),
    mapper: time(persons, (r) => pm.map(r).value),
  },
  {
    case: "measurement -> Observation (12 fields)",
    baseline: time(measurements, handObservation),
    mapper: time(measurements, (r) => om.map(r).value),
  },
  {
    case: "BP panel -> 2 measurement rows (for_each)",
    baseline: time(panels, (r) => first(handPanel(r).map((value) => ({ value })))),
    mapper: time(panels, (r) => first(panel.mapAll?.(r).outputs ?? [])),
  },
  {
    case: "Observation routed (choose of 3)",
    baseline: time(panels, (r) => first([handRoute(r)])),
    mapper: time(panels, (r) => first(route.mapAll?.(r).outputs ?? [])),
  },
].map((r) => ({ ...r, ratio: r.mapper / r.baseline }));

console.log(`records per case: ${N}`);
console.log("case                                     hand-written rec/s   compiled mapper rec/s   ratio");
// Per source record; the for_each case produces two target records per record.
for (const r of rows) {
  console.log(
    `${r.case.padEnd(40)} ${Math.round(r.baseline).toLocaleString("en").padStart(19)}   ${Math.round(r.mapper).toLocaleString("en").padStart(21)}   ${r.ratio.toFixed(2)}`,
  );
}
console.log(
  JSON.stringify({ bench: "mapper", records: N, node: process.version, cases: rows, sink: sink > 0 }),
);
