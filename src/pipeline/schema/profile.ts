// Profiles the columns of source tables for schema suggestions: per table (a CSV file, a FHIR resource
// type, an HL7 v2 segment) and column (a CSV header, a resource's leaf path, a segment field), how many
// records hold a value, a few distinct samples, and what the values look like (dates, numbers, codes, ids).
import { ER7 } from "../../transforms/hl7v2-value.js";

/** What a column's values look like. `empty`: no value was seen. */
export type ValueKind =
  | "integer"
  | "decimal"
  | "date"
  | "datetime"
  | "boolean"
  | "code"
  | "id"
  | "text"
  | "empty";

export interface ColumnProfile {
  table: string;
  column: string;
  /** Records of the table read, and those holding a value in this column. */
  records: number;
  filled: number;
  /** The first distinct values (at most MAX_SAMPLES). */
  samples: string[];
  kind: ValueKind;
  /** Share of the sampled values of that kind (0..1). */
  kind_share: number;
}

/** Values looked at per column: the first ones; the kind of a column is settled by then. */
const MAX_VALUES = 1000;
const MAX_SAMPLES = 5;
/** Leaf paths kept per FHIR resource type: a resource with more is cut, not the process. */
const MAX_COLUMNS = 500;

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const SLASH_DATE = /^\d{1,2}[/.-]\d{1,2}[/.-]\d{4}$/;
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const SLASH_DATETIME = /^\d{1,2}[/.-]\d{1,2}[/.-]\d{4}[ T]\d{1,2}:\d{2}(:\d{2})?$/;
// HL7 v2 TS/DTM: YYYYMMDD is a date, with hours (and more) a date-time.
const COMPACT_DATE = /^(1[89]|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/;
// (At least hours and minutes: ten digits are as often an NPI or a phone number.)
const COMPACT_DATETIME = /^(1[89]|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])\d{4,6}(\.\d+)?([+-]\d{4})?$/;
const BOOLEAN = /^(true|false|yes|no|y|n|t|f)$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// A code: one short token of letters, digits and . - _ / : (E11.9, 8462-4, M, mg/dL, urn:oid:...).
const CODE = /^[A-Za-z0-9][A-Za-z0-9.\-_/:^]{0,24}$/;

/** The kind of one value. Integers stay integers here; a column of distinct ones may be ids (below). */
export function kindOf(v: string): ValueKind {
  if (COMPACT_DATETIME.test(v) && v.length > 8) return "datetime";
  if (COMPACT_DATE.test(v)) return "date";
  // A number written with a leading zero (07030, 00093) is a code: a zip, an NDC part, never a count.
  if (/^0\d+$/.test(v)) return "code";
  if (INTEGER.test(v)) return "integer";
  if (DECIMAL.test(v)) return "decimal";
  if (ISO_DATE.test(v) || SLASH_DATE.test(v)) return "date";
  if (ISO_DATETIME.test(v) || SLASH_DATETIME.test(v)) return "datetime";
  if (BOOLEAN.test(v)) return "boolean";
  if (UUID.test(v)) return "id";
  if (CODE.test(v)) return "code";
  return "text";
}

interface Tally {
  profile: ColumnProfile;
  seen: number;
  distinct: Set<string>;
  kinds: Map<ValueKind, number>;
}

export class ColumnProfiler {
  private readonly tables = new Map<string, { records: number; columns: Map<string, Tally> }>();

  /** Every table name is taken as it is: schema suggestions rank any table. */
  entityNamed(name: string): string {
    return name;
  }

  readonly declaration = { file: "(any table)" };

  /** One record of `table`: a CSV row, a FHIR resource, an HL7 v2 segment. */
  add(table: string, record: object): void {
    let t = this.tables.get(table);
    if (!t) {
      t = { records: 0, columns: new Map() };
      this.tables.set(table, t);
    }
    t.records++;
    const values = new Map<string, string>();
    if (ER7 in record || "$ctx" in record) segmentValues(table, record as Record<string, unknown>, values);
    else leaves(record as Record<string, unknown>, "", values, 0);
    for (const [column, value] of values) {
      let c = t.columns.get(column);
      if (!c) {
        if (t.columns.size >= MAX_COLUMNS) continue;
        c = {
          profile: { table, column, records: 0, filled: 0, samples: [], kind: "empty", kind_share: 0 },
          seen: 0,
          distinct: new Set(),
          kinds: new Map(),
        };
        t.columns.set(column, c);
      }
      c.profile.filled++;
      if (c.seen >= MAX_VALUES) continue;
      c.seen++;
      if (c.distinct.size < MAX_VALUES) c.distinct.add(value);
      if (c.profile.samples.length < MAX_SAMPLES && !c.profile.samples.includes(value))
        c.profile.samples.push(value);
      const k = kindOf(value);
      c.kinds.set(k, (c.kinds.get(k) ?? 0) + 1);
    }
  }

  /** The columns in table order (first seen), each table's columns in the order first seen. */
  profiles(): ColumnProfile[] {
    const out: ColumnProfile[] = [];
    for (const t of this.tables.values()) {
      for (const c of t.columns.values()) {
        const p = c.profile;
        p.records = t.records;
        let best: ValueKind = "empty";
        let most = 0;
        for (const [k, n] of c.kinds) {
          if (n > most) {
            best = k;
            most = n;
          }
        }
        // Whole numbers that never repeat over many records are keys (ids); numbers that repeat are
        // measures or counts. Codes stay codes: a small table's codes are often all different.
        if (best === "integer" && c.seen >= 5 && c.distinct.size === c.seen) best = "id";
        p.kind = best;
        p.kind_share = c.seen === 0 ? 0 : most / c.seen;
        out.push(p);
      }
    }
    return out;
  }
}

/** CSV rows are flat; FHIR resources are walked to their leaves (`code.coding.code`, `valueQuantity.value`). */
function leaves(o: Record<string, unknown>, prefix: string, out: Map<string, string>, depth: number): void {
  for (const [k, v] of Object.entries(o)) {
    if (depth === 0 && (k === "resourceType" || k === "meta" || k === "text")) continue;
    if (k === "extension" || k === "modifierExtension" || k === "contained") continue;
    const path = prefix === "" ? k : `${prefix}.${k}`;
    for (const item of Array.isArray(v) ? v : [v]) {
      if (item === null || item === undefined) continue;
      if (typeof item === "object") {
        if (depth < 4) leaves(item as Record<string, unknown>, path, out, depth + 1);
      } else {
        const s = String(item).trim();
        if (s !== "" && !out.has(path)) out.set(path, s);
      }
    }
  }
}

/** An HL7 v2 segment's fields (`PID.7`), each by its first leaf value (component 1 of repetition 1). */
function segmentValues(table: string, segment: Record<string, unknown>, out: Map<string, string>): void {
  const plain = JSON.parse(JSON.stringify(segment)) as Record<string, unknown>;
  for (const [k, v] of Object.entries(plain)) {
    if (!/^\d+$/.test(k)) continue;
    // MSH-1 and MSH-2 are the delimiters, not data.
    if (table === "MSH" && (k === "1" || k === "2")) continue;
    let leaf: unknown = v;
    while (leaf !== null && typeof leaf === "object") leaf = (leaf as Record<string, unknown>)["1"];
    if (typeof leaf === "string" && leaf.trim() !== "") out.set(`${table}.${k}`, leaf.trim());
  }
}
