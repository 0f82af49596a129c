// Mapped CDM records (the pipeline's NDJSON, one target table at a time) -> CSV lines in the table's DDL
// column order, with every id translated through the registry, values checked against their column, and
// copies of rows already written left out (told apart by the table's key, see model.ts).
import type { RunIssue } from "../../pipeline/types.js";
import { rowHash } from "./id-table.js";
import type { ColumnPlan, TableModel } from "./model.js";
import type { IdRegistry } from "./registry.js";
import { Bad, fieldText, isTooLong, keyText } from "./values.js";

/** Registry ids (default), or the crossmap's own ids as they are (64-bit hashes: for a bigint DDL). */
export type IdMode = "registry" | "source";

export interface TableCounts {
  /** Rows handed over to be written. */
  written: number;
  /** Copies of a row already written (same key, same content), left out. */
  duplicates: number;
  /** Rows left out because another row was written under their key first (each one an issue). */
  conflicting: number;
  /** Rows left out because a value did not fit (each one an issue). */
  rejected: number;
}

const decoder = new TextDecoder();
/** Integer literals JSON.parse would round (beyond 2^53) become strings, so ids keep every digit. */
const BIG_INTEGER = /(?<!\\)":(-?\d{16,})(?=\s*[,}])/g;

/** A table's columns by name, found once (the scanner fills values by column position). */
interface TablePlan {
  index: Map<string, number>;
  /** Position of the column that names a row in messages (model.ts RowKey), and of the row-key column. */
  describeAt: number;
  keyAt: number;
  /** Position of each polymorphic column's `by` column. */
  polyBy: Map<string, number>;
  /** The names of the last record read, in its order, and their columns (undefined: not a column). */
  seen: string[];
  seenAt: (number | undefined)[];
}

/**
 * The digits of the integer literal of top-level member `name` in a flat JSON object line; undefined when
 * the line nests objects or arrays (the name might be a nested member's) or the literal is not an integer.
 */
function integerDigits(line: string, name: string): string | undefined {
  if (line.indexOf("{", 1) >= 0 || line.indexOf("[") >= 0) return undefined;
  const tag = `${JSON.stringify(name)}:`;
  const at = line.lastIndexOf(tag);
  if (at < 0) return undefined;
  const m = INTEGER_AT.exec(line.slice(at + tag.length, at + tag.length + 40));
  return m ? m[1] : undefined;
}

const INTEGER_AT = /^\s*(-?\d{16,})\s*[,}]/;

export class RowConverter {
  readonly counts = new Map<string, TableCounts>();
  private readonly unknownColumns = new Set<string>();
  private readonly plans = new Map<string, TablePlan>();
  /** One record's values by column position, and the names it has that the table lacks (reused per row). */
  private values: unknown[] = [];
  private readonly unknown: string[] = [];

  constructor(
    private readonly registry: IdRegistry,
    private readonly report: (issue: RunIssue) => void,
    private readonly ids: IdMode = "registry",
  ) {}

  countsOf(table: string): TableCounts {
    let c = this.counts.get(table);
    if (!c) {
      c = { written: 0, duplicates: 0, conflicting: 0, rejected: 0 };
      this.counts.set(table, c);
    }
    return c;
  }

  private plan(table: TableModel): TablePlan {
    let plan = this.plans.get(table.name);
    if (!plan) {
      const index = new Map(table.columns.map((c, i) => [c.name, i]));
      const describeColumn = table.key.kind === "content" ? table.columns[0]!.name : table.key.column;
      const polyBy = new Map<string, number>();
      for (const c of table.columns) if (c.poly) polyBy.set(c.name, index.get(c.poly.by) ?? -1);
      plan = {
        index,
        describeAt: index.get(describeColumn) ?? -1,
        keyAt: table.key.kind === "column" ? (index.get(table.key.column) ?? -1) : -1,
        polyBy,
        seen: [],
        seenAt: [],
      };
      this.plans.set(table.name, plan);
    }
    return plan;
  }

  /** Converts the records of `text` (NDJSON) for `table`, handing each CSV line (with "\n") to `emit`. */
  convert(table: TableModel, text: string | Uint8Array, emit: (line: string) => void): void {
    const source = typeof text === "string" ? text : decoder.decode(text);
    const plan = this.plan(table);
    const width = table.columns.length;
    if (this.values.length < width) this.values = new Array(width);
    const values = this.values;
    const unknown = this.unknown;
    let start = 0;
    while (start < source.length) {
      let end = source.indexOf("\n", start);
      if (end < 0) end = source.length;
      const line = source.slice(start, end);
      start = end + 1;
      if (line.charCodeAt(0) !== 123 && line.trim() === "") continue;
      values.fill(undefined, 0, width);
      unknown.length = 0;
      const record = JSON.parse(line) as Record<string, unknown>;
      let inexact = false;
      let k = 0;
      for (const name in record) {
        // The k-th name is most often the previous record's k-th (JSON.parse interns names, so === is
        // one comparison); a Map lookup per name cost as much as a fifth of the row.
        let at: number | undefined;
        if (plan.seen[k] === name) at = plan.seenAt[k];
        else {
          at = plan.index.get(name);
          plan.seen[k] = name;
          plan.seenAt[k] = at;
        }
        k++;
        if (at === undefined) {
          unknown.push(name);
          continue;
        }
        let value = record[name];
        if (typeof value === "number" && !Number.isSafeInteger(value) && Number.isInteger(value)) {
          // JSON.parse rounded an integer beyond 2^53 (a 64-bit id): take its digits from the text.
          const digits = integerDigits(line, name);
          if (digits === undefined) inexact = true;
          else value = digits;
        }
        values[at] = value;
      }
      if (inexact) this.reparse(line, plan, values);
      const out = this.row(table, plan, values);
      if (out !== undefined) emit(out);
    }
  }

  /** A line whose big integers could not be found by name (nested values): every one made a string first. */
  private reparse(line: string, plan: TablePlan, values: unknown[]): void {
    const record = JSON.parse(line.replace(BIG_INTEGER, '":"$1"')) as Record<string, unknown>;
    for (const name in record) {
      const at = plan.index.get(name);
      if (at !== undefined) values[at] = record[name];
    }
  }

  private issue(
    table: string,
    severity: "error" | "warning",
    code: string,
    message: string,
    field?: string,
  ): void {
    const issue: RunIssue = { file: table, entity: table, code, severity, message };
    if (field !== undefined) issue.field = `${table}.${field}`;
    this.report(issue);
  }

  /** One record's CSV line, or undefined when it is left out. */
  private row(table: TableModel, plan: TablePlan, values: readonly unknown[]): string | undefined {
    const counts = this.countsOf(table.name);
    const columns = table.columns;
    for (const name of this.unknown) this.unknownColumn(table.name, name);
    const fields: string[] = new Array(columns.length);
    let pkAt = -1;
    let pkKey: string | undefined;
    for (let i = 0; i < columns.length; i++) {
      const c = columns[i]!;
      const value = values[i];
      let text: string;
      if (c.ref !== undefined || c.poly !== undefined) {
        const key = keyText(value);
        if (key === undefined) text = "";
        else if (table.key.kind === "pk" && c.name === table.key.column) {
          pkAt = i;
          pkKey = key;
          text = key;
        } else {
          const namespace = c.ref ?? this.polyTable(table, plan, c, values, key);
          text = namespace === undefined ? "" : this.idText(namespace, key);
        }
      } else {
        const f = fieldText(c, value);
        if (f instanceof Bad) {
          this.issue(
            table.name,
            "error",
            "invalid_value",
            `${describeRow(table, plan, values)}: ${c.name}: ${f.message}; the row is not written`,
            c.name,
          );
          counts.rejected++;
          return undefined;
        }
        if (isTooLong(c, value)) {
          this.issue(
            table.name,
            "warning",
            "value_truncated",
            `${describeRow(table, plan, values)}: ${c.name} is longer than its ${c.type}: cut to ${c.maxLength} characters`,
            c.name,
          );
        }
        text = f;
      }
      if (text === "" && c.notNull) {
        this.issue(
          table.name,
          "error",
          "missing_required",
          `${describeRow(table, plan, values)}: ${c.name} is required (NOT NULL) and has no value; the row is not written`,
          c.name,
        );
        counts.rejected++;
        return undefined;
      }
      fields[i] = text;
    }
    const hash = rowHash(fields);
    const { namespace, key } = this.rowKey(table, plan, values, pkKey, hash);
    const { claim, id } = this.registry.claim(namespace, key, hash);
    if (claim === "same") {
      counts.duplicates++;
      return undefined;
    }
    if (claim === "differs") {
      counts.conflicting++;
      const name =
        pkAt >= 0 ? `${columns[pkAt]!.name} ${this.ids === "registry" ? id : key}` : `the row of ${key}`;
      this.issue(
        table.name,
        "warning",
        "duplicate_differs",
        `${table.name} ${name} (source id ${key}) was written before with other values; the first is kept`,
      );
      return undefined;
    }
    if (pkAt >= 0) fields[pkAt] = this.ids === "registry" ? String(id) : (pkKey as string);
    counts.written++;
    return `${fields.join(",")}\n`;
  }

  /** The registry namespace and key that tell this row apart (see model.ts RowKey). */
  private rowKey(
    table: TableModel,
    plan: TablePlan,
    values: readonly unknown[],
    pkKey: string | undefined,
    hash: number,
  ) {
    if (table.key.kind === "pk" && pkKey !== undefined) return { namespace: table.name, key: pkKey };
    if (table.key.kind === "column") {
      const key = keyText(values[plan.keyAt]);
      if (key !== undefined) return { namespace: `${table.name}#row`, key };
    }
    return { namespace: `${table.name}#row`, key: `#${hash >>> 0}` };
  }

  private idText(namespace: string, key: string): string {
    return this.ids === "registry" ? String(this.registry.idFor(namespace, key)) : key;
  }

  private polyTable(
    table: TableModel,
    plan: TablePlan,
    c: ColumnPlan,
    values: readonly unknown[],
    key: string,
  ): string | undefined {
    const poly = c.poly!;
    const by = values[plan.polyBy.get(c.name)!];
    const target = by === undefined || by === null ? undefined : poly.tables.get(String(by));
    if (target === undefined) {
      this.issue(
        table.name,
        "warning",
        "unresolved_id",
        `${describeRow(table, plan, values)}: ${c.name} ${key} is left empty: ${poly.by} ${JSON.stringify(by ?? null)} names no table the registry knows`,
        c.name,
      );
    }
    return target;
  }

  private unknownColumn(table: string, name: string): void {
    const id = `${table}.${name}`;
    if (this.unknownColumns.has(id)) return;
    this.unknownColumns.add(id);
    this.issue(
      table,
      "warning",
      "unknown_column",
      `${table} has no column ${name} in the CDM DDL; its values are left out`,
      name,
    );
  }
}

/** `person 3198808480235023718` (the table and the source key of its row), for messages. */
function describeRow(table: TableModel, plan: TablePlan, values: readonly unknown[]): string {
  const column = table.key.kind === "content" ? table.columns[0]!.name : table.key.column;
  const key = keyText(values[plan.describeAt]);
  return key === undefined ? `a ${table.name} row` : `${table.name} ${column} ${key}`;
}
