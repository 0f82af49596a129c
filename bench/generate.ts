// Generates OMOP CDM v5.4 person and condition_occurrence rows as NDJSON, shaped like the Synthea27Nj
// export (same columns, concept ids drawn from it), deterministic for a given seed.

import { once } from "node:events";
import { createWriteStream } from "node:fs";

/** Concept id -> SNOMED code pairs seen in Synthea27Nj CONDITION_OCCURRENCE. */
export const CONDITIONS: [number, string][] = [
  [133834, "24079001"],
  [192279, "127013003"],
  [195588, "38822007"],
  [201826, "44054006"],
  [201965, "27942005"],
  [254761, "49727002"],
  [257012, "40055000"],
  [260139, "10509002"],
  [28060, "43878008"],
  [317576, "53741008"],
  [320128, "59621000"],
  [321042, "410429000"],
  [372328, "65363002"],
  [37311061, "840539006"],
  [378001, "62106007"],
  [378419, "26929004"],
  [381316, "230690007"],
  [4029498, "128613002"],
  [40318618, "156073000"],
  [40481087, "444814009"],
  [4048171, "232353008"],
  [4051466, "233678006"],
  [4059173, "16114001"],
  [4059650, "160968000"],
  [4078393, "19169002"],
  [4079750, "239873007"],
  [4109685, "284551006"],
  [4112343, "195662009"],
];
const GENDERS: [number, string][] = [
  [8507, "M"],
  [8532, "F"],
  [8507, "M"],
  [8532, "F"],
  [8551, "U"],
];
const RACES: [number, string][] = [
  [8527, "white"],
  [8516, "black"],
  [8515, "asian"],
  [0, "other"],
];

/** A small, fast, seeded PRNG (mulberry32): the same seed gives the same file. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (n: number) => (n < 10 ? `0${n}` : String(n));
const BIG_ID_BASE = 1741351032930224000n;

/** Every 1000th person has a 64-bit id beyond 2^53, as sharded OMOP exports do. */
export function personId(i: number): string {
  return i % 1000 === 999 ? String(BIG_ID_BASE + BigInt(i)) : String(i + 1);
}

function uuid(rand: () => number): string {
  const hex = () =>
    Math.floor(rand() * 0x100000000)
      .toString(16)
      .padStart(8, "0");
  const a = hex();
  const b = hex();
  const c = hex();
  const d = hex();
  return `${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${d}`;
}

export function personRow(i: number, rand: () => number): string {
  const [gender, genderSource] = GENDERS[Math.floor(rand() * GENDERS.length)]!;
  const [race, raceSource] = RACES[Math.floor(rand() * RACES.length)]!;
  const year = 1920 + Math.floor(rand() * 100);
  const month = 1 + Math.floor(rand() * 12);
  const day = 1 + Math.floor(rand() * 28);
  const location = rand() < 0.3 ? "null" : String(1 + Math.floor(rand() * 5000));
  return (
    `{"person_id":${personId(i)},"gender_concept_id":${gender},"year_of_birth":${year},` +
    `"month_of_birth":${month},"day_of_birth":${day},"birth_datetime":"${year}-${pad(month)}-${pad(day)} 00:00:00",` +
    `"race_concept_id":${race},"ethnicity_concept_id":${rand() < 0.85 ? 38003564 : 38003563},` +
    `"location_id":${location},"provider_id":null,"care_site_id":null,"person_source_value":"${uuid(rand)}",` +
    `"gender_source_value":"${genderSource}","gender_source_concept_id":0,"race_source_value":"${raceSource}",` +
    `"race_source_concept_id":0,"ethnicity_source_value":"nonhispanic","ethnicity_source_concept_id":0}\n`
  );
}

export function conditionRow(i: number, persons: number, rand: () => number): string {
  const [concept, snomed] = CONDITIONS[Math.floor(rand() * CONDITIONS.length)]!;
  const year = 1990 + Math.floor(rand() * 34);
  const start = `${year}-${pad(1 + Math.floor(rand() * 12))}-${pad(1 + Math.floor(rand() * 28))}`;
  const ended = rand() < 0.6;
  const end = ended
    ? `${year + 1}-${pad(1 + Math.floor(rand() * 12))}-${pad(1 + Math.floor(rand() * 28))}`
    : "";
  const visit = 1 + Math.floor(rand() * persons * 20);
  return (
    `{"condition_occurrence_id":${i + 1},"person_id":${personId(Math.floor(rand() * persons))},` +
    `"condition_concept_id":${concept},"condition_start_date":"${start}","condition_start_datetime":"${start} 00:00:00",` +
    `"condition_end_date":${ended ? `"${end}"` : "null"},"condition_end_datetime":${ended ? `"${end} 00:00:00"` : "null"},` +
    `"condition_type_concept_id":${rand() < 0.9 ? 32020 : 38000175},"condition_status_concept_id":0,"stop_reason":null,` +
    `"provider_id":${1 + Math.floor(rand() * 900)},"visit_occurrence_id":${visit},"visit_detail_id":${1000000 + visit},` +
    `"condition_source_value":"${snomed}","condition_source_concept_id":${concept},"condition_status_source_value":null}\n`
  );
}

/** Writes `rows` rows made by `row` to `path`, in 1 MB writes with backpressure. Resolves to the byte size. */
export async function writeRows(path: string, rows: number, row: (i: number) => string): Promise<number> {
  const out = createWriteStream(path);
  let buffer = "";
  let bytes = 0;
  for (let i = 0; i < rows; i++) {
    buffer += row(i);
    if (buffer.length >= 1 << 20) {
      bytes += Buffer.byteLength(buffer);
      if (!out.write(buffer)) await once(out, "drain");
      buffer = "";
    }
  }
  bytes += Buffer.byteLength(buffer);
  out.end(buffer);
  await once(out, "close");
  return bytes;
}

export function generatePersons(path: string, rows: number, seed = 1): Promise<number> {
  const rand = random(seed);
  return writeRows(path, rows, (i) => personRow(i, rand));
}

export function generateConditions(path: string, rows: number, persons: number, seed = 2): Promise<number> {
  const rand = random(seed);
  return writeRows(path, rows, (i) => conditionRow(i, persons, rand));
}

/** One Bundle entry: a FHIR Patient, or a Condition of one, as a FHIR server's searchset holds them. */
export function bundleEntry(i: number, rand: () => number): string {
  const id = personId(Math.floor(i / 2));
  if (i % 2 === 0) {
    const year = 1920 + Math.floor(rand() * 100);
    const gender = ["male", "female", "female", "male", "unknown"][Math.floor(rand() * 5)];
    return (
      `{"fullUrl":"urn:uuid:${uuid(rand)}","resource":{"resourceType":"Patient","id":"${id}",` +
      `"identifier":[{"system":"urn:oid:2.16.840.1.113883.4.3.25","value":"${uuid(rand)}"}],` +
      `"name":[{"family":"Family${i}","given":["Given${i}"]}],"gender":"${gender}",` +
      `"birthDate":"${year}-${pad(1 + Math.floor(rand() * 12))}-${pad(1 + Math.floor(rand() * 28))}"},` +
      `"search":{"mode":"match"}}`
    );
  }
  const [, snomed] = CONDITIONS[Math.floor(rand() * CONDITIONS.length)]!;
  const year = 1990 + Math.floor(rand() * 34);
  return (
    `{"fullUrl":"urn:uuid:${uuid(rand)}","resource":{"resourceType":"Condition","id":"${i}",` +
    `"clinicalStatus":{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/condition-clinical","code":"active"}]},` +
    `"code":{"coding":[{"system":"http://snomed.info/sct","code":"${snomed}"}]},"subject":{"reference":"Patient/${id}"},` +
    `"onsetDateTime":"${year}-${pad(1 + Math.floor(rand() * 12))}-${pad(1 + Math.floor(rand() * 28))}T00:00:00Z"},` +
    `"search":{"mode":"match"}}`
  );
}

/**
 * Writes one FHIR Bundle (a searchset, pretty at the top, one entry per line) of at least `bytes` bytes to
 * `path`: the shape of a large export that must be streamed, not read whole. Resolves to the entry count.
 */
export async function generateBundle(path: string, bytes: number, seed = 3): Promise<number> {
  const rand = random(seed);
  const out = createWriteStream(path);
  let buffer = '{\n  "resourceType": "Bundle",\n  "type": "searchset",\n  "entry": [\n';
  let written = 0;
  let i = 0;
  for (; written + buffer.length < bytes; i++) {
    buffer += `${i > 0 ? ",\n" : ""}    ${bundleEntry(i, rand)}`;
    if (buffer.length >= 1 << 20) {
      written += Buffer.byteLength(buffer);
      if (!out.write(buffer)) await once(out, "drain");
      buffer = "";
    }
  }
  out.end(`${buffer}\n  ]\n}\n`);
  await once(out, "close");
  return i;
}

/** Measurement concept, LOINC code, unit concept, UCUM unit, and a typical value, as in Synthea27Nj MEASUREMENT. */
const MEASUREMENTS: [number, string, number, string, number][] = [
  [3004249, "8480-6", 8876, "mm[Hg]", 120],
  [3012888, "8462-4", 8876, "mm[Hg]", 80],
  [3025315, "29463-7", 9529, "kg", 70],
  [3036277, "8302-2", 8582, "cm", 170],
  [43055141, "72514-3", 0, "{score}", 3],
  [3024171, "9279-1", 8541, "/min", 16],
  [3027018, "8867-4", 8541, "/min", 70],
  [3038553, "39156-5", 9531, "kg/m2", 25],
  [3005456, "6298-4", 8753, "mmol/L", 4.5],
  [3032503, "49765-1", 8840, "mg/dL", 9.5],
];

/** A measurement row shaped like Synthea27Nj's (ETL-Synthea's columns and conventions). */
export function measurementRow(i: number, persons: number, rand: () => number): string {
  const [concept, loinc, unit, ucum, typical] = MEASUREMENTS[Math.floor(rand() * MEASUREMENTS.length)]!;
  const date = `${1990 + Math.floor(rand() * 34)}-${pad(1 + Math.floor(rand() * 12))}-${pad(1 + Math.floor(rand() * 28))}`;
  const value = Math.round(typical * (0.7 + rand() * 0.6) * 10) / 10;
  const visit = 1 + Math.floor(rand() * persons * 20);
  return (
    `{"measurement_id":${i + 1},"person_id":${personId(Math.floor(rand() * persons))},` +
    `"measurement_concept_id":${concept},"measurement_date":"${date}","measurement_datetime":"${date} 00:00:00",` +
    `"measurement_time":"${date}","measurement_type_concept_id":38000267,"operator_concept_id":0,` +
    `"value_as_number":${value},"value_as_concept_id":0,"unit_concept_id":${unit},"range_low":null,"range_high":null,` +
    `"provider_id":${1 + Math.floor(rand() * 900)},"visit_occurrence_id":${visit},"visit_detail_id":${1000000 + visit},` +
    `"measurement_source_value":"${loinc}","measurement_source_concept_id":${concept},"unit_source_value":"${ucum}",` +
    `"unit_source_concept_id":null,"value_source_value":"${value}","measurement_event_id":null,"meas_event_field_concept_id":null}\n`
  );
}

export function generateMeasurements(path: string, rows: number, persons: number, seed = 3): Promise<number> {
  const rand = random(seed);
  return writeRows(path, rows, (i) => measurementRow(i, persons, rand));
}
