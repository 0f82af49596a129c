// The CDM tables as the writers see them: the DDL's columns in order, and for each id column the registry
// namespace (the table) its ids belong to, from the DDL's keys and crossmaps/omop/cdm_v5.4-database.yaml.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { BUILTIN_DIR } from "../../crossmap/catalog.js";
import { AppError } from "../../errors.js";
import type { Dialect } from "../db/client.js";
import { type CdmDdl, type DdlColumn, loadDdl } from "./ddl.js";

export const PROFILE_FILE = join(BUILTIN_DIR, "omop", "cdm_v5.4-database.yaml");

const ProfileSchema = z
  .object({
    standard: z.string(),
    vocabulary_tables: z.array(z.string()),
    polymorphic_ids: z.array(
      z
        .object({
          table: z.string(),
          column: z.string(),
          by: z.string(),
          tables: z.record(z.string(), z.string()),
        })
        .strict(),
    ),
    row_keys: z.record(z.string(), z.string()),
    observation_period: z
      .object({
        period_type_concept_id: z.number().int(),
        events: z.array(
          z.object({ table: z.string(), start: z.string(), end: z.string().optional() }).strict(),
        ),
      })
      .strict(),
    condition_era: z.object({ gap_days: z.number().int().min(0) }).strict(),
    drug_era: z
      .object({
        gap_days: z.number().int().min(0),
        ingredient_class: z.string(),
        ingredient_vocabularies: z.array(z.string()).min(1),
      })
      .strict(),
  })
  .strict();

export type CdmProfile = z.infer<typeof ProfileSchema>;

export interface ColumnPlan extends DdlColumn {
  /** An id column: the table (registry namespace) its ids belong to. */
  ref?: string;
  /** An id column whose table is named by another column's value. */
  poly?: { by: string; tables: ReadonlyMap<string, string> };
}

export type RowKey =
  /** The primary key column (an id of the table itself). */
  | { kind: "pk"; column: string }
  /** One id column tells rows apart (death: person_id). */
  | { kind: "column"; column: string }
  /** The whole row tells rows apart. */
  | { kind: "content" };

export interface TableModel {
  name: string;
  columns: ColumnPlan[];
  key: RowKey;
}

export interface CdmModel {
  dialect: Dialect;
  ddl: CdmDdl;
  profile: CdmProfile;
  /** The tables a mapping may write (every CDM table but the vocabulary's). */
  tables: Map<string, TableModel>;
  vocabularyTables: Set<string>;
}

let profile: CdmProfile | undefined;

export function loadProfile(): CdmProfile {
  if (!profile) {
    try {
      profile = ProfileSchema.parse(parse(readFileSync(PROFILE_FILE, "utf8")));
    } catch (err) {
      throw new AppError(500, "cdm_profile", `cannot read ${PROFILE_FILE}: ${(err as Error).message}`);
    }
  }
  return profile;
}

const models = new Map<Dialect, CdmModel>();

export function loadModel(dialect: Dialect): CdmModel {
  let model = models.get(dialect);
  if (!model) {
    model = buildModel(loadDdl(dialect), loadProfile());
    models.set(dialect, model);
  }
  return model;
}

export function buildModel(ddl: CdmDdl, profile: CdmProfile): CdmModel {
  const vocabularyTables = new Set(profile.vocabulary_tables);
  const pk = new Map<string, string>();
  for (const c of ddl.primaryKeys) if (c.columns.length === 1) pk.set(c.table, c.columns[0]!);
  const refs = new Map<string, string>();
  for (const c of ddl.foreignKeys) {
    const target = c.references?.table;
    if (!target || vocabularyTables.has(target) || c.columns.length !== 1) continue;
    refs.set(`${c.table}.${c.columns[0]}`, target);
  }
  // A column named as a table's primary key points into that table even where the DDL has no foreign key
  // for it (cost.payer_plan_period_id, note_nlp.note_id).
  const byKeyName = new Map<string, string>();
  for (const [table, column] of pk) if (!vocabularyTables.has(table)) byKeyName.set(column, table);
  const poly = new Map<string, ColumnPlan["poly"]>();
  for (const p of profile.polymorphic_ids) {
    poly.set(`${p.table}.${p.column}`, { by: p.by, tables: new Map(Object.entries(p.tables)) });
  }
  const tables = new Map<string, TableModel>();
  for (const t of ddl.tables.values()) {
    if (vocabularyTables.has(t.name)) continue;
    const own = pk.get(t.name);
    const columns = t.columns.map((c): ColumnPlan => {
      const plan: ColumnPlan = { ...c };
      const ref = c.name === own ? t.name : (refs.get(`${t.name}.${c.name}`) ?? byKeyName.get(c.name));
      if (ref) plan.ref = ref;
      const p = poly.get(`${t.name}.${c.name}`);
      if (p) plan.poly = p;
      return plan;
    });
    const keyColumn = profile.row_keys[t.name];
    const key: RowKey = own
      ? { kind: "pk", column: own }
      : keyColumn
        ? { kind: "column", column: keyColumn }
        : { kind: "content" };
    tables.set(t.name, { name: t.name, columns, key });
  }
  return { dialect: ddl.dialect, ddl, profile, tables, vocabularyTables };
}
