// Test support: checks an OMOP row against the CDM v5.4 field list (crossmaps/standards/omop_cdm_v5.4.yaml,
// generated from OHDSI's Field_Level CSV): known columns only, every required column present, and each value
// of its column's type.
import { loadStandard } from "../../src/crossmap/standards.js";

const cdm = loadStandard("omop_cdm_v5.4");
if (!cdm) throw new Error("crossmaps/standards/omop_cdm_v5.4.yaml is missing");

// The CDM's `integer` is 32-bit in OHDSI's DDL, but the house rule (DESIGN.md) is that OMOP ids are
// 64-bit: hashed ids narrower than that collide (two patients merged) at realistic sizes. Keys are
// therefore checked as signed 64-bit; other integer columns (counts, concept ids) must fit 32 bits.
const INT32 = 2 ** 31 - 1;
const INT64_MAX = 2n ** 63n - 1n;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

function typeProblem(type: string, v: unknown, key = false): string | undefined {
  if (type === "integer") {
    if (typeof v === "bigint") {
      if (!key) return "an integer beyond 32 bits";
      return v >= -INT64_MAX && v <= INT64_MAX ? undefined : "an integer beyond 64 bits";
    }
    if (typeof v !== "number" || !Number.isInteger(v)) return "not an integer";
    return key || Math.abs(v) <= INT32 ? undefined : "an integer beyond 32 bits";
  }
  if (type === "float") return typeof v === "number" && Number.isFinite(v) ? undefined : "not a number";
  if (type === "date") return typeof v === "string" && DATE.test(v) ? undefined : "not a YYYY-MM-DD date";
  if (type === "datetime")
    return typeof v === "string" && DATETIME.test(v) ? undefined : "not a YYYY-MM-DD hh:mm:ss datetime";
  const varchar = /^varchar\((\d+|MAX)\)$/.exec(type);
  if (varchar) {
    if (typeof v !== "string") return "not a string";
    return varchar[1] !== "MAX" && v.length > Number(varchar[1]) ? `longer than ${varchar[1]}` : undefined;
  }
  return `unknown CDM type ${type}`;
}

/** Every problem of one row of `table`, as readable lines; empty when the row fits the CDM. */
export function omopRowProblems(table: string, row: Record<string, unknown>): string[] {
  const fields = cdm?.entities[table]?.fields;
  if (!fields) return [`unknown table ${table}`];
  const problems: string[] = [];
  const known = new Map(fields.map((f) => [f.name, f]));
  for (const [k, v] of Object.entries(row)) {
    const f = known.get(k);
    if (!f) problems.push(`${table}.${k} is not a CDM v5.4 column`);
    else if (v === null || v === undefined || v === "") problems.push(`${table}.${k} is empty`);
    else {
      // Record keys (person_id, visit_occurrence_id, ...) as opposed to concept ids.
      const isKey = k.endsWith("_id") && !k.endsWith("concept_id");
      const p = typeProblem(f.type ?? "", v, isKey);
      if (p) problems.push(`${table}.${k} = ${JSON.stringify(String(v))} is ${p} (${f.type})`);
    }
  }
  for (const f of fields)
    if (f.required && !(f.name in row)) problems.push(`${table}.${f.name} (required) is missing`);
  return problems;
}
