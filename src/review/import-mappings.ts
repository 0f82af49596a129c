// Mapping files made elsewhere, as concept items: OHDSI Usagi's export (one row per source code and
// target concept; columns as Usagi's WriteCodeMappingsToFile writes them) and the OMOP CDM
// SOURCE_TO_CONCEPT_MAP table. Statuses, equivalence and comments are kept; a bad row is reported with
// its line and left out, and the other rows still count.
import { AppError } from "../errors.js";
import type { ConceptItem, Equivalence, ItemMeta } from "../store/types.js";
import type { VocabularyBridge } from "../vocab/bridge.js";
import { unneutralise } from "./export-stcm.js";
import { readCsv } from "./import-csv.js";
import { conceptItemFields } from "./item-fields.js";
import { MAPPED_METHODS } from "./listing.js";
import { replacementFor } from "./revalidate.js";

export type ImportFormat = "usagi" | "source-to-concept-map";
export const IMPORT_FORMATS: readonly ImportFormat[] = ["usagi", "source-to-concept-map"];

export type ImportFields = Omit<ConceptItem, keyof ItemMeta | "revalidation">;

export interface ImportedItem {
  line: number;
  fields: ImportFields;
  /** A decision made by a person (Usagi APPROVED or IGNORED; a valid STCM row): protected from pushes. */
  reviewed: boolean;
}

export interface ImportProblem {
  line: number;
  /** error: the row was left out; warning: imported, with something dropped (named). */
  severity: "error" | "warning";
  message: string;
}

export interface ParsedImport {
  format: ImportFormat;
  items: ImportedItem[];
  problems: ImportProblem[];
}

export interface ImportOptions {
  /** Default: decided by the header. */
  format?: ImportFormat | undefined;
  /** The code system of every source code (Usagi files do not say; STCM rows do, and win). */
  sourceVocabularyId?: string | undefined;
  /** The source column the codes come from (part of an item's natural key); default none. */
  sourceColumn?: string | undefined;
}

const USAGI_EQUIVALENCE: Record<string, Equivalence | null> = {
  EQUAL: "equal",
  EQUIVALENT: "equivalent",
  WIDER: "wider",
  NARROWER: "narrower",
  INEXACT: "inexact",
  UNMATCHED: "unmatched",
  UNREVIEWED: null,
};

const USAGI_STATUSES = [
  "APPROVED",
  "UNCHECKED",
  "AUTO_MAPPED",
  "AUTO_MAPPED_TO_1",
  "INVALID_TARGET",
  "FLAGGED",
  "IGNORED",
];

/** Usagi's mapping types for a code's main concept (older files wrote EVENT, or nothing). */
const MAIN_TARGET = new Set(["MAPS_TO", "EVENT", ""]);

class RowError extends Error {}

const text = (v: string | undefined): string | null => {
  const t = (v ?? "").trim();
  return t === "" ? null : t;
};

function integer(v: string | undefined, column: string, min = 0): number | null {
  const t = text(v);
  if (t === null) return null;
  if (!/^-?\d+$/.test(t) || Number(t) < min || !Number.isSafeInteger(Number(t))) {
    throw new RowError(`${column} ${JSON.stringify(t)} is not a whole number >= ${min}`);
  }
  return Number(t);
}

function decimal(v: string | undefined, column: string): number | null {
  const t = text(v);
  if (t === null) return null;
  const n = Number(t);
  if (!Number.isFinite(n)) throw new RowError(`${column} ${JSON.stringify(t)} is not a number`);
  return n;
}

function required(fields: Record<string, string>, column: string): string {
  const t = text(fields[column]);
  if (t === null) throw new RowError(`${column} is empty`);
  if (t.length > 200 || /\p{Cc}/u.test(t)) {
    throw new RowError(`${column} must be 1 to 200 characters without control characters`);
  }
  return t;
}

/** The file's column (or the option) each item field comes from, to name it in a problem. */
const COLUMN_OF: Record<ImportFormat, Partial<Record<keyof ImportFields, string>>> = {
  usagi: {
    source_column: "--source-column",
    source_code: "sourceCode",
    source_description: "sourceName",
    target_concept_id: "conceptId",
    target_concept_name: "conceptName",
    confidence: "matchScore",
    source_vocabulary_id: "--source-vocabulary",
    source_frequency: "sourceFrequency",
    comment: "comment",
  },
  "source-to-concept-map": {
    source_column: "--source-column",
    source_code: "source_code",
    source_description: "source_code_description",
    target_concept_id: "target_concept_id",
    target_vocabulary_id: "target_vocabulary_id",
    source_vocabulary_id: "source_vocabulary_id",
  },
};

/** The same limits a push has (item-fields.ts): a row that breaks one is left out, naming the column. */
function checkLimits(item: Omit<ImportedItem, "line">, format: ImportFormat): void {
  const result = conceptItemFields.safeParse(item.fields);
  if (result.success) return;
  const messages = result.error.issues.map((issue) => {
    const field = String(issue.path[0]) as keyof ImportFields;
    const column = COLUMN_OF[format][field] ?? field;
    const value = item.fields[field];
    if (issue.code === "too_big" && typeof value === "string")
      return `${column} is ${value.length} characters long, over the limit of ${String(issue.maximum)}`;
    if (issue.code === "too_big") return `${column} ${String(value)} is over ${String(issue.maximum)}`;
    if (issue.code === "too_small") return `${column} ${String(value)} is below ${String(issue.minimum)}`;
    return `${column}: ${issue.message}`;
  });
  throw new RowError(messages.join("; "));
}

/** Parses a mapping file: bytes (checked as UTF-8, each bad row reported) or text. */
export function parseMappingFile(csv: Uint8Array | string, options: ImportOptions = {}): ParsedImport {
  const table = readCsv(csv);
  const format =
    options.format ??
    (table.columns.includes("sourceCode")
      ? "usagi"
      : table.columns.some((c) => c.toLowerCase() === "source_code")
        ? "source-to-concept-map"
        : undefined);
  // A table exported from a database comes with its columns as the database names them: SOURCE_CODE
  // from Oracle, Snowflake or SQL Server tools. The CDM's names are lower case; read any case.
  if (format === "source-to-concept-map") lowerCaseColumns(table);
  if (format === undefined) {
    throw new AppError(
      422,
      "unknown_import_format",
      "line 1: the header is neither Usagi's (sourceCode, mappingStatus, conceptId, ...) nor SOURCE_TO_CONCEPT_MAP's (source_code, source_vocabulary_id, target_concept_id, ...)",
    );
  }
  const needed =
    format === "usagi"
      ? ["sourceCode", "mappingStatus", "conceptId"]
      : ["source_code", "source_vocabulary_id", "target_concept_id"];
  const missing = needed.filter((c) => !table.columns.includes(c));
  if (missing.length > 0) {
    throw new AppError(422, "missing_columns", `line 1: the ${format} header lacks ${missing.join(", ")}`);
  }
  const problems: ImportProblem[] = table.broken.map((b) => ({
    line: b.line,
    severity: "error",
    message: b.message,
  }));
  const items: ImportedItem[] = [];
  // An item is identified by (source_column, source_code): the store's natural key.
  const seen = new Map<string, Kept>();
  for (const row of table.rows) {
    try {
      // A cell our own CSV export wrote with a leading ' (a formula-like value) reads back as it was.
      for (const [column, value] of Object.entries(row.fields)) row.fields[column] = unneutralise(value);
      const item = format === "usagi" ? usagiRow(row.fields, options) : stcmRow(row.fields, options);
      checkLimits(item, format);
      const code = item.fields.source_code;
      const first = seen.get(code);
      if (first !== undefined && first.vocabulary !== item.fields.source_vocabulary_id) {
        problems.push({
          line: row.line,
          severity: "error",
          message: `code ${JSON.stringify(code)} of ${item.fields.source_vocabulary_id} was left out: line ${first.line} has the same code of ${first.vocabulary}, and an item is identified by its source column and code; import each vocabulary with its own --source-column`,
        });
        continue;
      }
      const type = format === "usagi" ? (text(row.fields.mappingType) ?? "") : "";
      const kept: Kept = {
        line: row.line,
        vocabulary: item.fields.source_vocabulary_id ?? null,
        index: first?.index ?? items.length,
        type,
        concept: item.fields.target_concept_id ?? 0,
      };
      // Usagi writes a row per target; an item holds one concept: the code's main (MAPS_TO) one, which
      // need not be on its first row (a reviewer may have added the value's concept first).
      if (first !== undefined && (MAIN_TARGET.has(first.type) || !MAIN_TARGET.has(type))) {
        problems.push({ line: row.line, severity: "warning", message: notKept(code, first, kept) });
        continue;
      }
      if (first !== undefined)
        problems.push({ line: first.line, severity: "warning", message: notKept(code, kept, first) });
      seen.set(code, kept);
      items[kept.index] = { ...item, line: row.line };
    } catch (err) {
      if (!(err instanceof RowError)) throw err;
      problems.push({ line: row.line, severity: "error", message: err.message });
    }
  }
  for (const kept of seen.values()) {
    if (format === "usagi" && !MAIN_TARGET.has(kept.type)) {
      problems.push({
        line: kept.line,
        severity: "warning",
        message: `mappingType ${kept.type} is not a main (MAPS_TO) target; imported as the code's concept`,
      });
    }
  }
  problems.sort((a, b) => a.line - b.line);
  return { format, items, problems };
}

/** The row whose target an item holds, for a code seen already. */
interface Kept {
  line: number;
  vocabulary: string | null;
  /** Position of its item in the parsed items. */
  index: number;
  /** Usagi's mappingType ("" for STCM rows and old Usagi files). */
  type: string;
  concept: number;
}

function notKept(code: string, kept: Kept, dropped: Kept): string {
  const where =
    kept.line < dropped.line
      ? `already imported from line ${kept.line}`
      : `imported from line ${kept.line}, its main (MAPS_TO) target`;
  return `code ${JSON.stringify(code)} ${where}; this further target (concept ${dropped.concept}${dropped.type ? `, ${dropped.type}` : ""}) is not kept: an item maps a code to one concept`;
}

function lowerCaseColumns(table: ReturnType<typeof readCsv>): void {
  table.columns = table.columns.map((c) => c.toLowerCase());
  for (const row of table.rows) {
    row.fields = Object.fromEntries(Object.entries(row.fields).map(([k, v]) => [k.toLowerCase(), v]));
  }
}

/**
 * Decisions whose target the vocabulary has not as a valid standard concept: imported as the file says,
 * each with a warning, since `crossmap revalidate` against the same vocabulary would reopen it at once.
 */
export function checkTargets(items: readonly ImportedItem[], vocab: VocabularyBridge): ImportProblem[] {
  const problems: ImportProblem[] = [];
  for (const { line, fields } of items) {
    const id = fields.target_concept_id;
    if (!MAPPED_METHODS.has(fields.method) || id === null) continue;
    const concept = vocab.getConcept(id);
    const state = !concept
      ? "is not in the vocabulary"
      : concept.invalid_reason
        ? `is invalid (${concept.invalid_reason}) in the vocabulary`
        : concept.standard_concept !== "S"
          ? "is not a standard concept"
          : undefined;
    if (state === undefined) continue;
    const found = concept && replacementFor(vocab, concept);
    const instead = found
      ? `; its replacement is ${found.concept.concept_id} ${JSON.stringify(found.concept.concept_name)} (${found.via})`
      : "";
    problems.push({
      line,
      severity: "warning",
      message: `code ${JSON.stringify(fields.source_code)}: target concept ${id} ${state}${instead}; imported as decided, but crossmap revalidate would reopen it`,
    });
  }
  return problems;
}

function usagiRow(f: Record<string, string>, options: ImportOptions): Omit<ImportedItem, "line"> {
  const code = required(f, "sourceCode");
  const status = text(f.mappingStatus) ?? "";
  if (!USAGI_STATUSES.includes(status)) {
    throw new RowError(`mappingStatus ${JSON.stringify(status)} is not one of ${USAGI_STATUSES.join(", ")}`);
  }
  const equivalenceText = text(f.equivalence) ?? "UNREVIEWED";
  if (!(equivalenceText in USAGI_EQUIVALENCE)) {
    throw new RowError(
      `equivalence ${JSON.stringify(equivalenceText)} is not one of ${Object.keys(USAGI_EQUIVALENCE).join(", ")}`,
    );
  }
  const conceptId = integer(f.conceptId, "conceptId");
  const target = conceptId === 0 ? null : conceptId;
  // Approved with a concept: a person accepted it, the suggestion ("<auto>") or one they chose.
  // Approved without one, or ignored: the code cannot be mapped. Anything else awaits review.
  let method: ConceptItem["method"] = "review";
  let reviewed = false;
  if (status === "APPROVED" && target !== null) {
    method = text(f.createdBy) === "<auto>" ? "auto" : "override";
    reviewed = true;
  } else if (status === "APPROVED" || status === "IGNORED") {
    method = "unmapped";
    reviewed = true;
  }
  const unmapped = method === "unmapped";
  // Usagi writes -1 for a frequency it was not given.
  const frequency = integer(f.sourceFrequency, "sourceFrequency", -1);
  return {
    reviewed,
    fields: {
      source_column: options.sourceColumn ?? null,
      source_code: code,
      source_description: text(f.sourceName),
      target_concept_id: unmapped ? null : target,
      target_concept_name: unmapped ? null : text(f.conceptName),
      target_vocabulary_id: null,
      confidence: decimal(f.matchScore, "matchScore"),
      method,
      source_vocabulary_id: options.sourceVocabularyId ?? null,
      source_frequency: frequency === -1 ? null : frequency,
      equivalence: USAGI_EQUIVALENCE[equivalenceText] ?? (unmapped ? "unmatched" : null),
      comment: text(f.comment),
    },
  };
}

function stcmRow(f: Record<string, string>, options: ImportOptions): Omit<ImportedItem, "line"> {
  const code = required(f, "source_code");
  const vocabulary = text(f.source_vocabulary_id) ?? options.sourceVocabularyId;
  if (vocabulary === undefined || vocabulary === null) throw new RowError("source_vocabulary_id is empty");
  const target = integer(f.target_concept_id, "target_concept_id");
  if (target === null) throw new RowError("target_concept_id is empty");
  const invalid = text(f.invalid_reason);
  if (invalid !== null && invalid !== "D" && invalid !== "U") {
    throw new RowError(`invalid_reason ${JSON.stringify(invalid)} is not D, U or empty`);
  }
  const end = text(f.valid_end_date);
  if (end !== null && !/^\d{4}-\d{2}-\d{2}$/.test(end) && !/^\d{8}$/.test(end)) {
    throw new RowError(`valid_end_date ${JSON.stringify(end)} is not a YYYY-MM-DD or YYYYMMDD date`);
  }
  const today = new Date().toISOString().slice(0, 10).replaceAll("-", "");
  const expired = invalid !== null || (end !== null && end.replaceAll("-", "") < today);
  // Target 0 is OMOP's "no matching concept": the code was decided unmappable. A row that is no
  // longer valid goes back to review, with its concept as the suggestion.
  const method: ConceptItem["method"] = target === 0 ? "unmapped" : expired ? "review" : "manual";
  return {
    reviewed: method !== "review",
    fields: {
      source_column: options.sourceColumn ?? null,
      source_code: code,
      source_description: text(f.source_code_description),
      target_concept_id: target === 0 ? null : target,
      target_concept_name: null,
      target_vocabulary_id: target === 0 ? null : text(f.target_vocabulary_id),
      confidence: null,
      method,
      source_vocabulary_id: vocabulary,
      source_frequency: null,
      equivalence: target === 0 ? "unmatched" : null,
      comment: null,
    },
  };
}
