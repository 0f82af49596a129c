// Turns one parsed row of CONCEPT.csv or CONCEPT_RELATIONSHIP.csv into checked values, or says exactly
// what is wrong with it. Column positions come from the header, so column order does not matter.
import { AppError, type Problem } from "../errors.js";
import { normalizeDate } from "./athena-files.js";
import type { Concept } from "./bridge.js";
import { MAX_CODE_BYTES, MAX_CONCEPT_ID } from "./layout.js";

export const CONCEPT_COLUMNS = [
  "concept_id",
  "concept_name",
  "domain_id",
  "vocabulary_id",
  "concept_class_id",
  "standard_concept",
  "concept_code",
  "valid_start_date",
  "valid_end_date",
  "invalid_reason",
] as const;

export const RELATIONSHIP_COLUMNS = [
  "concept_id_1",
  "concept_id_2",
  "relationship_id",
  "invalid_reason",
] as const;

export const SYNONYM_COLUMNS = ["concept_id", "concept_synonym_name"] as const;

export type ColumnIndex<C extends string> = Record<C, number> & { width: number };

/** Positions of the needed columns in a header; a missing one stops the build (nothing could be read). */
export function indexColumns<C extends string>(
  file: string,
  header: string[],
  needed: readonly C[],
): ColumnIndex<C> {
  const missing = needed.filter((c) => !header.includes(c));
  if (missing.length > 0) {
    throw new AppError(422, "vocab_bad_header", `${file} is not an Athena table`, [
      {
        file,
        line: 1,
        path: [],
        code: "missing_column",
        message: `missing column(s): ${missing.join(", ")}`,
      },
    ]);
  }
  const index = { width: header.length } as ColumnIndex<C>;
  for (const c of needed) (index as Record<string, number>)[c] = header.indexOf(c);
  return index;
}

/** A row's fault, located by the caller (file, line). */
export class RowFault {
  constructor(
    readonly column: string | undefined,
    readonly message: string,
  ) {}

  toProblem(file: string, line: number): Problem {
    return {
      file,
      line,
      path: this.column ? [this.column] : [],
      code: "malformed_row",
      message: this.message,
    };
  }
}

/** Non-negative decimal integer up to MAX_CONCEPT_ID, or -1. A char loop: `Number()` accepts "1e3", " 7", "0x1". */
export function parseConceptId(s: string): number {
  if (s.length === 0 || s.length > 10) return -1;
  let v = 0;
  for (let i = 0; i < s.length; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v <= MAX_CONCEPT_ID ? v : -1;
}

const idFault = (column: string, value: string) =>
  new RowFault(column, `${column} ${JSON.stringify(value)} is not an integer from 0 to ${MAX_CONCEPT_ID}`);

function fieldCount(fields: string[], width: number): RowFault | undefined {
  return fields.length === width
    ? undefined
    : new RowFault(undefined, `expected ${width} fields, found ${fields.length}`);
}

export function readConceptRow(
  fields: string[],
  col: ColumnIndex<(typeof CONCEPT_COLUMNS)[number]>,
): Concept | RowFault {
  const wrongWidth = fieldCount(fields, col.width);
  if (wrongWidth) return wrongWidth;
  const rawId = fields[col.concept_id]!;
  const id = parseConceptId(rawId);
  if (id < 0) return idFault("concept_id", rawId);
  const vocabulary = fields[col.vocabulary_id]!;
  if (vocabulary === "") return new RowFault("vocabulary_id", "vocabulary_id is empty");
  const code = fields[col.concept_code]!;
  if (code === "") return new RowFault("concept_code", "concept_code is empty");
  if (Buffer.byteLength(code) > MAX_CODE_BYTES) {
    return new RowFault("concept_code", `concept_code is longer than ${MAX_CODE_BYTES} bytes`);
  }
  const standard = flag(fields[col.standard_concept]!);
  if (standard !== "" && standard !== "S" && standard !== "C") {
    return new RowFault(
      "standard_concept",
      `standard_concept ${JSON.stringify(standard)} is not S, C or empty`,
    );
  }
  const start = normalizeDate(fields[col.valid_start_date]!);
  if (!start) return dateFault("valid_start_date", fields[col.valid_start_date]!);
  const end = normalizeDate(fields[col.valid_end_date]!);
  if (!end) return dateFault("valid_end_date", fields[col.valid_end_date]!);
  return {
    concept_id: id,
    // Kept exactly as Athena has it, "" and "NA" included; renderers decide whether a name is displayable.
    concept_name: fields[col.concept_name]!,
    domain_id: fields[col.domain_id]!,
    vocabulary_id: vocabulary,
    concept_class_id: fields[col.concept_class_id]!,
    standard_concept: standard || null,
    concept_code: code,
    valid_start_date: start,
    valid_end_date: end,
    invalid_reason: flag(fields[col.invalid_reason]!) || null,
  };
}

/**
 * A one-letter flag (standard_concept, invalid_reason), with R's literal `NA` (what `write.csv` writes for
 * a missing value) read as empty: no flag is ever "NA", and keeping it would make every concept of such
 * an export invalid and drop every relationship as deprecated.
 */
const flag = (value: string): string => (value === "NA" ? "" : value);

const dateFault = (column: string, value: string) =>
  new RowFault(column, `${column} ${JSON.stringify(value)} is not a YYYYMMDD or YYYY-MM-DD date`);

export interface RelationshipRow {
  c1: number;
  c2: number;
  relationship: string;
  invalid: boolean;
}

/** Fills `out` (one object reused for every row: there are tens of millions) or returns the fault. */
export function readRelationshipRow(
  fields: string[],
  col: ColumnIndex<(typeof RELATIONSHIP_COLUMNS)[number]>,
  out: RelationshipRow,
): RowFault | undefined {
  const wrongWidth = fieldCount(fields, col.width);
  if (wrongWidth) return wrongWidth;
  out.c1 = parseConceptId(fields[col.concept_id_1]!);
  if (out.c1 < 0) return idFault("concept_id_1", fields[col.concept_id_1]!);
  out.c2 = parseConceptId(fields[col.concept_id_2]!);
  if (out.c2 < 0) return idFault("concept_id_2", fields[col.concept_id_2]!);
  out.relationship = fields[col.relationship_id]!;
  if (out.relationship === "") return new RowFault("relationship_id", "relationship_id is empty");
  out.invalid = flag(fields[col.invalid_reason]!) !== "";
  return undefined;
}

/** A CONCEPT_SYNONYM.csv row: the concept it names and the synonym (language_concept_id is not used). */
export function readSynonymRow(
  fields: string[],
  col: ColumnIndex<(typeof SYNONYM_COLUMNS)[number]>,
): { conceptId: number; name: string } | RowFault {
  const wrongWidth = fieldCount(fields, col.width);
  if (wrongWidth) return wrongWidth;
  const conceptId = parseConceptId(fields[col.concept_id]!);
  if (conceptId < 0) return idFault("concept_id", fields[col.concept_id]!);
  return { conceptId, name: fields[col.concept_synonym_name]! };
}

/** Lower is preferred when one (vocabulary, code) names several concepts. */
export function codeRank(c: Concept): number {
  if (c.invalid_reason) return 3;
  return c.standard_concept === "S" ? 0 : c.standard_concept === "C" ? 1 : 2;
}
