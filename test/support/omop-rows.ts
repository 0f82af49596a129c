// Test support: checks an OMOP row against the CDM v5.4 field list (crossmaps/standards/omop_cdm_v5.4.yaml,
// generated from OHDSI's Field_Level CSV): known columns only, every required column present, and each value
// of its column's type.
import { loadStandard } from "../../src/crossmap/standards.js";

const cdm = loadStandard("omop_cdm_v5.4");
if (!cdm) throw new Error("crossmaps/standards/omop_cdm_v5.4.yaml is missing");

const INT32 = 2 ** 31 - 1;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

function typeProblem(type: string, v: unknown): string | undefined {
  if (type === "integer") {
    if (typeof v === "bigint") return "an integer beyond 32 bits";
    return typeof v === "number" && Number.isInteger(v) && Math.abs(v) <= INT32
      ? undefined
      : "not an integer";
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
      const p = typeProblem(f.type ?? "", v);
      if (p) problems.push(`${table}.${k} = ${JSON.stringify(String(v))} is ${p} (${f.type})`);
    }
  }
  for (const f of fields)
    if (f.required && !(f.name in row)) problems.push(`${table}.${f.name} (required) is missing`);
  return problems;
}
