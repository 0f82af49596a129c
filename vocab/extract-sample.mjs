// Rebuilds this folder's sample vocabulary (Athena TAB form) from the Synthea27Nj OMOP sample:
//   node vocab/extract-sample.mjs /path/to/synthea27nj_cdm54
// Keeps every concept the sample's tables use, the standard concepts they "Maps to", every UCUM unit of the
// shard (so that FHIR -> OMOP finds unit_concept_id for the units FHIR data writes), the hand-added rows in
// added-concepts.tsv, and the "Maps to"/"Mapped from" rows between kept concepts.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Papa from "papaparse";

const src = process.argv[2];
if (!src) throw new Error("usage: node vocab/extract-sample.mjs <synthea27nj_cdm54 dir>");
const here = new URL(".", import.meta.url).pathname;
const read = (name) => Papa.parse(readFileSync(join(src, name), "utf8"), { header: true, skipEmptyLines: true }).data;
const isoToAthena = (d) => d.replaceAll("-", "");

const TABLES = ["PERSON", "VISIT_OCCURRENCE", "VISIT_DETAIL", "CONDITION_OCCURRENCE", "DRUG_EXPOSURE", "MEASUREMENT", "OBSERVATION", "PROCEDURE_OCCURRENCE", "DEVICE_EXPOSURE", "DEATH", "PROVIDER", "OBSERVATION_PERIOD"];
const used = new Set();
for (const t of TABLES) {
  for (const row of read(`${t}.csv`)) {
    for (const [k, v] of Object.entries(row)) if (k.endsWith("concept_id") && v && v !== "0") used.add(v);
  }
}
const concepts = new Map(read("CONCEPT.csv").map((c) => [c.concept_id, c]));
const added = Papa.parse(readFileSync(join(here, "added-concepts.tsv"), "utf8").replace(/^#.*\n/gm, ""), {
  header: true,
  delimiter: "\t",
  skipEmptyLines: true,
}).data;
const keep = new Set([...used].filter((id) => concepts.has(id)));
for (const c of concepts.values()) if (c.vocabulary_id === "UCUM") keep.add(c.concept_id);
for (const a of added) keep.add(a.concept_id);
const rels = read("CONCEPT_RELATIONSHIP.csv").filter((r) => r.relationship_id === "Maps to" || r.relationship_id === "Mapped from");
for (const r of rels) if (r.relationship_id === "Maps to" && keep.has(r.concept_id_1) && concepts.has(r.concept_id_2)) keep.add(r.concept_id_2);

const COLS = ["concept_id", "concept_name", "domain_id", "vocabulary_id", "concept_class_id", "standard_concept", "concept_code", "valid_start_date", "valid_end_date", "invalid_reason"];
const out = [COLS.join("\t")];
const rows = [...[...keep].filter((id) => concepts.has(id)).map((id) => concepts.get(id)), ...added];
rows.sort((a, b) => Number(a.concept_id) - Number(b.concept_id));
for (const c of rows) out.push(COLS.map((k) => (k.endsWith("_date") ? isoToAthena(c[k]) : c[k] ?? "")).join("\t"));
writeFileSync(join(here, "CONCEPT.csv"), `${out.join("\n")}\n`);

const RCOLS = ["concept_id_1", "concept_id_2", "relationship_id", "valid_start_date", "valid_end_date", "invalid_reason"];
const relOut = [RCOLS.join("\t")];
for (const r of rels) {
  if (keep.has(r.concept_id_1) && keep.has(r.concept_id_2)) relOut.push(RCOLS.map((k) => (k.endsWith("_date") ? isoToAthena(r[k]) : r[k] ?? "")).join("\t"));
}
writeFileSync(join(here, "CONCEPT_RELATIONSHIP.csv"), `${relOut.join("\n")}\n`);

const VCOLS = ["vocabulary_id", "vocabulary_name", "vocabulary_reference", "vocabulary_version", "vocabulary_concept_id"];
writeFileSync(join(here, "VOCABULARY.csv"), `${[VCOLS.join("\t"), ...read("VOCABULARY.csv").map((v) => VCOLS.map((k) => v[k]).join("\t"))].join("\n")}\n`);
console.log(JSON.stringify({ concepts: rows.length, used_by_sample: used.size, relationships: relOut.length - 1 }));
