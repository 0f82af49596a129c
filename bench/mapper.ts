// Compiled mapper vs hand-written object construction for the same records, in one run.
// Prints a table and one JSON line. Usage: npx tsx bench/mapper.ts [records]
import { readFileSync } from "node:fs";
import { parseCrossmap } from "../src/crossmap/load.js";

const N = Number(process.argv[2] ?? 1_000_000);
const here = new URL(".", import.meta.url);
const personMap = parseCrossmap(
  readFileSync(new URL("../test/golden/spec-person/crossmap.yaml", here), "utf8"),
);
const obsMap = parseCrossmap(
  readFileSync(new URL("../test/golden/fhir-observation/crossmap.yaml", here), "utf8"),
);

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
].map((r) => ({ ...r, ratio: r.mapper / r.baseline }));

console.log(`records per case: ${N}`);
console.log("case                                     hand-written rec/s   compiled mapper rec/s   ratio");
for (const r of rows) {
  console.log(
    `${r.case.padEnd(40)} ${Math.round(r.baseline).toLocaleString("en").padStart(19)}   ${Math.round(r.mapper).toLocaleString("en").padStart(21)}   ${r.ratio.toFixed(2)}`,
  );
}
console.log(
  JSON.stringify({ bench: "mapper", records: N, node: process.version, cases: rows, sink: sink > 0 }),
);
