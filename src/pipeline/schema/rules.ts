// The data schema suggestions rank with, all in crossmaps/suggest/: the words sites write in table and
// column names (schema-words.tsv) and how well each kind of value fits a target column (schema-types.yaml),
// plus the target standard's tables and columns (crossmaps/standards/). The engine names no standard.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { BUILTIN_DIR, parseYaml } from "../../crossmap/catalog.js";
import { loadStandard } from "../../crossmap/standards.js";
import { AppError } from "../../errors.js";
import type { ValueKind } from "./profile.js";

export const SCHEMA_WORDS = join(BUILTIN_DIR, "suggest", "schema-words.tsv");
export const SCHEMA_TYPES = join(BUILTIN_DIR, "suggest", "schema-types.yaml");

/** A word as written -> its readings, each a list of words. */
export type SchemaWords = Map<string, string[][]>;

const read = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    throw new AppError(400, "input_error", `cannot read ${file}: ${(err as Error).message}`);
  }
};

/** Lower case, a plural s dropped (patients -> patient, labs -> lab), `ies` -> `y`. */
export function stem(word: string): string {
  const w = word.toLowerCase();
  if (w.length > 4 && w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  if (w.length > 3 && w.endsWith("s") && !/(ss|is|us)$/.test(w)) return w.slice(0, -1);
  return w;
}

/** The words of a name: split at _ . - spaces, camelCase and digits; lower case; stemmed. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/([A-Za-z])(\d)/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== "" && !/^\d+$/.test(w))
    .map(stem);
}

export function loadSchemaWords(file: string = SCHEMA_WORDS): SchemaWords {
  const out: SchemaWords = new Map();
  read(file)
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (line.trim() === "" || line.startsWith("#")) return;
      const [word, ...readings] = line.split("\t");
      if (!word || readings.length === 0) {
        throw new AppError(400, "input_error", `${file}:${i + 1}: a word, a TAB and at least one reading`);
      }
      const key = stem(word.trim());
      if (out.has(key)) throw new AppError(400, "input_error", `${file}:${i + 1}: ${key} is listed twice`);
      out.set(
        key,
        readings.map((r) => r.trim().split(/\s+/).map(stem)),
      );
    });
  return out;
}

const fitRule = z
  .object({
    column: z.string().optional(),
    type: z.string().optional(),
    fits: z.record(z.string(), z.number().min(0).max(1)),
    other: z.number().min(0).max(1),
  })
  .strict()
  .refine((r) => r.column !== undefined || r.type !== undefined, { message: "give column or type" });
const typesFile = z
  .object({
    standards: z.record(z.string(), z.array(fitRule)),
    names: z.record(z.string(), z.record(z.string(), z.array(z.string()))).optional(),
  })
  .strict();

const parseTypes = (file: string) => {
  const parsed = typesFile.safeParse(parseYaml(read(file)));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError(400, "input_error", `${file}: ${issue.path.join(".")}: ${issue.message}`);
  }
  return parsed.data;
};

/**
 * Words a standard's column names stand for (FHIR `subject` is the patient): target word -> the words a
 * source name may say instead. Empty when the file names none for the standard.
 */
export function loadTargetNames(standard: string, file: string = SCHEMA_TYPES): Map<string, string[]> {
  const names = parseTypes(file).names?.[standard] ?? {};
  return new Map(Object.entries(names).map(([k, v]) => [stem(k), v.map(stem)]));
}

export interface FitRule {
  column?: RegExp | undefined;
  type?: RegExp | undefined;
  fits: Partial<Record<ValueKind, number>>;
  other: number;
}

export function loadFitRules(standard: string, file: string = SCHEMA_TYPES): FitRule[] {
  const data = parseTypes(file);
  const rules = data.standards[standard];
  if (!rules) {
    const known = Object.keys(data.standards).join(", ");
    throw new AppError(
      400,
      "usage",
      `${file} says nothing of ${standard}'s column types (it knows ${known})`,
    );
  }
  return rules.map((r) => ({
    column: r.column === undefined ? undefined : new RegExp(r.column),
    type: r.type === undefined ? undefined : new RegExp(r.type),
    fits: r.fits as Partial<Record<ValueKind, number>>,
    other: r.other,
  }));
}

/** A column of the target standard to rank. */
export interface TargetColumn {
  table: string;
  column: string;
  /** Another name of it (HL7 v2: `date_time_of_birth` for PID.7), whose words count too. */
  alias: string | undefined;
  type: string | undefined;
}

/** Every listed column of the standard's tables, in definition order. */
export function targetColumns(standard: string): TargetColumn[] {
  const def = loadStandard(standard);
  if (!def) throw new AppError(400, "usage", `no definition of standard ${standard} in crossmaps/standards/`);
  const out: TargetColumn[] = [];
  for (const [table, e] of Object.entries(def.entities)) {
    for (const f of e.fields) {
      if (f.name === "resourceType") continue;
      out.push({ table, column: f.name, alias: f.alias, type: f.type });
    }
  }
  return out;
}

/** A source standard's field aliases by `TABLE.field` (HL7 v2 `PID.7` -> `date_time_of_birth`). */
export function sourceAliases(standard: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const def = standard === undefined ? undefined : loadStandard(standard);
  if (!def) return out;
  for (const [table, e] of Object.entries(def.entities)) {
    for (const f of e.fields) if (f.alias !== undefined) out.set(`${table}.${f.name}`, f.alias);
  }
  return out;
}
