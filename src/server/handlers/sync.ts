// Sync push and pull. A push is one transaction of upserts: by id when given, else by natural key;
// identical items are left alone, and items a reviewer decided are only overwritten when forced.
import { randomUUID } from "node:crypto";
import { type ChangeFacts, saveChange } from "../../store/changes.js";
import type { Stores } from "../../store/env.js";
import type { ItemStore } from "../../store/items.js";
import { nowIso, runTimestamp } from "../../store/keys-util.js";
import type { ConceptItem, CrossMappingRun, ItemKind, ItemMeta, SchemaItem } from "../../store/types.js";

export type SchemaFields = Omit<SchemaItem, keyof ItemMeta>;
export type ConceptFields = Omit<ConceptItem, keyof ItemMeta>;

export type PushOutcome = "created" | "updated" | "unchanged" | "skipped";
export interface PushResult {
  index: number;
  id: string | null;
  result: PushOutcome;
  reason?: string;
}
export interface PushSummary {
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
  items: PushResult[];
}

export interface PushRequest<F> {
  projectId: string;
  /** `reviewed`: the item carries a person's decision (an import), protected from later pushes. */
  items: { id?: string | undefined; fields: F; reviewed?: boolean }[];
  force: boolean;
  keyId: string | null;
  reviewer: string | null;
  /** How the changes are audited: push_create / push_update, or import. Default push. */
  via?: "push" | "import";
}

// A pushed item is the whole item: fields left out take these defaults, so pushing the same payload
// twice is a no-op whatever the first push changed. The fields added after the spec (comment, source
// vocabulary, frequency, equivalence, candidates) are the exception: left out, an update keeps them, so a client
// that does not know them never wipes what reviewers wrote; null clears them.
export const schemaFields = (p: {
  source_table?: string | null | undefined;
  source_column: string;
  target_table?: string | null | undefined;
  target_column?: string | null | undefined;
  confidence?: number | null | undefined;
  status?: SchemaItem["status"] | undefined;
  comment?: string | null | undefined;
  candidates?: SchemaItem["candidates"] | undefined;
}): SchemaFields => ({
  source_table: p.source_table ?? null,
  source_column: p.source_column,
  target_table: p.target_table ?? null,
  target_column: p.target_column ?? null,
  confidence: p.confidence ?? null,
  status: p.status ?? "needs_review",
  ...given("comment", p.comment),
  ...given("candidates", p.candidates),
});

/** `{[key]: value}` when the client gave the field (null included), else nothing. */
const given = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

/** New items get null for the added fields a push left out. */
const ADDED_FIELDS = {
  schema: { comment: null, candidates: null },
  concept: {
    source_vocabulary_id: null,
    source_frequency: null,
    equivalence: null,
    comment: null,
    candidates: null,
  },
} as const;

export const conceptFields = (p: {
  source_column?: string | null | undefined;
  source_code: string;
  source_description?: string | null | undefined;
  target_concept_id?: number | null | undefined;
  target_concept_name?: string | null | undefined;
  target_vocabulary_id?: string | null | undefined;
  confidence?: number | null | undefined;
  method?: ConceptItem["method"] | undefined;
  source_vocabulary_id?: string | null | undefined;
  source_frequency?: number | null | undefined;
  equivalence?: ConceptItem["equivalence"] | undefined;
  comment?: string | null | undefined;
  candidates?: ConceptItem["candidates"] | undefined;
}): ConceptFields => ({
  source_column: p.source_column ?? null,
  source_code: p.source_code,
  source_description: p.source_description ?? null,
  target_concept_id: p.target_concept_id ?? null,
  target_concept_name: p.target_concept_name ?? null,
  target_vocabulary_id: p.target_vocabulary_id ?? null,
  confidence: p.confidence ?? null,
  method: p.method ?? "review",
  ...given("source_vocabulary_id", p.source_vocabulary_id),
  ...given("source_frequency", p.source_frequency),
  ...given("equivalence", p.equivalence),
  ...given("comment", p.comment),
  ...given("candidates", p.candidates),
});

const NATURAL_KEY_NAMES: Record<ItemKind, string> = {
  schema: "(source_table, source_column)",
  concept: "(source_column, source_code)",
};

export function pushItems<T extends SchemaItem | ConceptItem>(
  stores: Stores,
  store: ItemStore<T>,
  kind: ItemKind,
  req: PushRequest<Omit<T, keyof ItemMeta>>,
): Promise<PushSummary> {
  return stores.write(() => {
    const summary = emptySummary();
    for (const [index, item] of req.items.entries()) {
      note(summary, index, upsertItem(stores, store, kind, req, item));
    }
    return summary;
  });
}

type Outcome = Omit<PushResult, "index">;

function upsertItem<T extends SchemaItem | ConceptItem>(
  stores: Stores,
  store: ItemStore<T>,
  kind: ItemKind,
  req: PushRequest<Omit<T, keyof ItemMeta>>,
  { id, fields, reviewed }: { id?: string | undefined; fields: Omit<T, keyof ItemMeta>; reviewed?: boolean },
): Outcome {
  const byId = id === undefined ? undefined : store.get(req.projectId, id);
  const byKey = store.findByNaturalKey(req.projectId, fields);
  const existing = byId ?? (id === undefined ? byKey : undefined);
  if (byKey && existing?.id !== byKey.id) {
    const key = JSON.stringify(store.naturalKey(fields));
    const reason = `natural key ${NATURAL_KEY_NAMES[kind]} = ${key} belongs to item ${byKey.id}`;
    return { id: id ?? null, result: "skipped", reason };
  }
  const now = nowIso();
  const reviewedAt = reviewed ? now : null;
  const imported = req.via === "import";
  if (!existing) {
    const meta = {
      id: id ?? randomUUID(),
      version: 1,
      created_at: now,
      updated_at: now,
      reviewed_at: reviewedAt,
    };
    const created = { ...ADDED_FIELDS[kind], ...fields, ...meta } as T;
    saveChange(
      store,
      stores.audit,
      req.projectId,
      null,
      created,
      facts(req, kind, imported ? "import" : "push_create", now),
    );
    return { id: created.id, result: "created" };
  }
  if (sameFields(existing, fields) && (!reviewed || existing.reviewed_at !== null)) {
    return { id: existing.id, result: "unchanged" };
  }
  if (existing.reviewed_at !== null && !req.force) {
    const reason =
      req.via === "import"
        ? "reviewed item; import with force (--force, ?force=true) to overwrite the decision"
        : "reviewed item; push with ?force=true to overwrite the decision";
    return { id: existing.id, result: "skipped", reason };
  }
  // A forced push replaces the decision; the audit log keeps it, and the item is open to pushes again
  // (unless what replaces it is an imported decision).
  const meta = { version: existing.version + 1, updated_at: now, reviewed_at: reviewedAt };
  const updated = { ...existing, ...fields, ...meta } as T;
  saveChange(
    store,
    stores.audit,
    req.projectId,
    existing,
    updated,
    facts(req, kind, imported ? "import" : "push_update", now),
  );
  return { id: updated.id, result: "updated" };
}

/** A pushed run; created_at left out means "keep the stored one", or "now" for a new run. */
export type RunPush = Omit<CrossMappingRun, "crossmap_file" | "created_at"> & {
  crossmap_file?: string | null | undefined;
  created_at?: string | null | undefined;
};

/** Runs have no review decisions, so a push upserts by id and force changes nothing. */
export function pushRuns(stores: Stores, projectId: string, runs: RunPush[]): Promise<PushSummary> {
  return stores.write(() => {
    const summary = emptySummary();
    for (const [index, p] of runs.entries()) {
      const existing = stores.runs.get(projectId, p.id);
      const run: CrossMappingRun = {
        id: p.id,
        source_standard: p.source_standard,
        target_standard: p.target_standard,
        source_entity: p.source_entity,
        target_entity: p.target_entity,
        record_count: p.record_count,
        status: p.status,
        crossmap_file: p.crossmap_file ?? null,
        created_at: p.created_at === undefined ? (existing?.created_at ?? runTimestamp()) : p.created_at,
        ...(p.issue_count === undefined ? {} : { issue_count: p.issue_count }),
        ...(p.error === undefined ? {} : { error: p.error }),
        ...(p.decision_snapshot === undefined ? {} : { decision_snapshot: p.decision_snapshot }),
        ...(p.vocabulary_release === undefined ? {} : { vocabulary_release: p.vocabulary_release }),
      };
      if (existing && sameFields(existing, run)) {
        note(summary, index, { id: run.id, result: "unchanged" });
        continue;
      }
      stores.runs.put(projectId, run);
      note(summary, index, { id: run.id, result: existing ? "updated" : "created" });
    }
    return summary;
  });
}

/**
 * Whether every field the push gave equals the stored one (a field the item lacks counts as null; an
 * object field, such as a run's decision_snapshot, by its JSON).
 */
function sameFields<F extends object>(existing: F, fields: F): boolean {
  return (Object.keys(fields) as (keyof F)[]).every((k) => {
    const a = existing[k] ?? null;
    const b = fields[k] ?? null;
    return (
      a === b || (typeof a === "object" && typeof b === "object" && JSON.stringify(a) === JSON.stringify(b))
    );
  });
}

function emptySummary(): PushSummary {
  return { created: 0, updated: 0, unchanged: 0, skipped: 0, items: [] };
}

function note(s: PushSummary, index: number, outcome: Outcome): void {
  s[outcome.result]++;
  s.items.push({ index, ...outcome });
}

function facts(
  req: PushRequest<unknown>,
  kind: ItemKind,
  action: "push_create" | "push_update" | "import",
  at: string,
): ChangeFacts {
  return { item_kind: kind, action, key_id: req.keyId, reviewer: req.reviewer, at };
}
