// What goes in and out of a project beside the review endpoints: exports of its decisions (crossmap,
// SOURCE_TO_CONCEPT_MAP, FHIR ConceptMap), imports of mapping files, and revalidation against a new
// vocabulary release. Shared by the HTTP routes and the CLI commands.
import { AppError } from "../../errors.js";
import { conceptMap } from "../../review/export-conceptmap.js";
import { crossmapFromSchemaItems } from "../../review/export-crossmap.js";
import { STCM_COLUMNS, sourceToConceptMap, toCsv } from "../../review/export-stcm.js";
import {
  checkTargets,
  type ImportFields,
  type ImportOptions,
  type ImportProblem,
  parseMappingFile,
} from "../../review/import-mappings.js";
import { revalidate } from "../../review/revalidate.js";
import { saveChange } from "../../store/changes.js";
import type { Stores } from "../../store/env.js";
import { nowIso } from "../../store/keys-util.js";
import type { ConceptItem, Project } from "../../store/types.js";
import type { VocabularyBridge } from "../../vocab/bridge.js";
import { projectNotFound } from "./items.js";
import { type Actor, facts } from "./review.js";
import { type PushSummary, pushItems } from "./sync.js";

const projectOf = (stores: Stores, projectId: string): Project => {
  const project = stores.projects.get(projectId);
  if (!project) throw projectNotFound(projectId);
  return project;
};

const invalid = (
  where: (string | number)[],
  problems: { path: (string | number)[]; message: string; code: string }[],
) =>
  new AppError(
    422,
    "validation_error",
    "Invalid request",
    problems.map((p) => ({ ...p, path: [...where, ...p.path] })),
  );

/** The crossmap YAML of the project's approved and overridden schema items. */
export function exportCrossmap(stores: Stores, projectId: string, source: string | undefined) {
  const project = projectOf(stores, projectId);
  if (project.target_model === null) {
    throw new AppError(
      409,
      "no_target_model",
      `Project ${projectId} has no target_model, so a crossmap has no target standard; create projects with one`,
    );
  }
  const name =
    source ??
    (project.name
      .normalize("NFD")
      .replace(/[^A-Za-z0-9]+/g, "_")
      .replace(/^_|_$/g, "")
      .toLowerCase() ||
      "source");
  return crossmapFromSchemaItems(
    { ...project, target_model: project.target_model },
    stores.schemaItems.list(projectId).items,
    name,
  );
}

/** SOURCE_TO_CONCEPT_MAP as CSV; 422 naming every item that cannot make a valid row. */
export function exportSourceToConceptMap(
  stores: Stores,
  projectId: string,
  options: { sourceVocabularyId?: string | undefined; vocabulary?: VocabularyBridge | undefined },
): { csv: string; rows: number } {
  projectOf(stores, projectId);
  const { rows, problems } = sourceToConceptMap(stores.conceptItems.list(projectId).items, options);
  if (problems.length > 0) throw invalid([], problems);
  return { csv: toCsv(STCM_COLUMNS, rows), rows: rows.length };
}

export function exportConceptMap(
  stores: Stores,
  projectId: string,
  vocabulary: VocabularyBridge | undefined,
): Record<string, unknown> {
  const project = projectOf(stores, projectId);
  return conceptMap(project, stores.conceptItems.list(projectId).items, vocabulary ? { vocabulary } : {});
}

export interface ImportSummary extends Omit<PushSummary, "items"> {
  format: string;
  /** Per imported row: its line, the item it created or changed, and what happened. */
  items: (PushSummary["items"][number] & { line: number })[];
  /** Rows left out (error) or imported with something dropped (warning), by line. */
  problems: ImportProblem[];
}

/**
 * Imports a mapping file into the project's concept items, in one transaction: matched by natural key
 * (source_column, source_code); a person's decisions in the file (Usagi APPROVED/IGNORED, valid STCM
 * rows) are marked reviewed, and an item already decided here is skipped unless `force`. The file's bytes
 * are checked as UTF-8 (each row with bad bytes is reported); text is taken as it is.
 */
export async function importMappings(
  stores: Stores,
  projectId: string,
  file: Uint8Array | string,
  options: ImportOptions & { force: boolean; actor: Actor; vocabulary?: VocabularyBridge | undefined },
): Promise<ImportSummary> {
  projectOf(stores, projectId);
  let parsed: ReturnType<typeof parseMappingFile>;
  try {
    parsed = parseMappingFile(file, options);
  } catch (err) {
    if (err instanceof AppError && err.status === 422 && err.problems.length === 0) {
      throw invalid(["body"], [{ path: [], message: err.message, code: `value_error.${err.code}` }]);
    }
    throw err;
  }
  const vocab = options.vocabulary;
  const problems = vocab
    ? [...parsed.problems, ...checkTargets(parsed.items, vocab)].sort((a, b) => a.line - b.line)
    : parsed.problems;
  const items = parsed.items.map((i) => ({ fields: completed(i.fields, vocab), reviewed: i.reviewed }));
  const summary = await pushItems(stores, stores.conceptItems, "concept", {
    projectId,
    items,
    force: options.force,
    ...options.actor,
    via: "import",
  });
  return {
    format: parsed.format,
    created: summary.created,
    updated: summary.updated,
    unchanged: summary.unchanged,
    skipped: summary.skipped,
    items: summary.items.map((r) => ({ ...r, line: parsed.items[r.index]!.line })),
    problems,
  };
}

/**
 * The fields as an item update takes them: the added fields the file left empty are left out (kept),
 * and the target's name and vocabulary come from the vocabulary when the file lacks them.
 */
function completed(f: ImportFields, vocab: VocabularyBridge | undefined) {
  const concept = f.target_concept_id === null ? undefined : vocab?.getConcept(f.target_concept_id);
  const out: Partial<ImportFields> = {
    ...f,
    target_concept_name: f.target_concept_name ?? concept?.concept_name ?? null,
    target_vocabulary_id: f.target_vocabulary_id ?? concept?.vocabulary_id ?? null,
  };
  for (const k of ["source_vocabulary_id", "source_frequency", "equivalence", "comment"] as const) {
    if (out[k] === null) delete out[k];
  }
  return out as ImportFields;
}

export interface RevalidationSummary {
  release: string | null;
  checked: number;
  reopened: number;
  dry_run: boolean;
  items: {
    id: string;
    reason: string;
    previous_concept_id: number;
    suggested_concept_id: number | null;
    suggested_via: string | null;
  }[];
}

/**
 * Moves every mapped concept item whose target `vocabulary` no longer has as a valid standard concept
 * back to review, with the replacement suggested: one transaction, one audit event (`revalidate`) per item.
 */
export async function revalidateProject(
  stores: Stores,
  projectId: string,
  vocabulary: VocabularyBridge,
  options: { dryRun: boolean; actor: Actor },
): Promise<RevalidationSummary> {
  projectOf(stores, projectId);
  const release = vocabulary.release ?? null;
  const plan = (items: readonly ConceptItem[], at: string) => revalidate(items, vocabulary, release, at);
  const summarize = (r: ReturnType<typeof plan>): RevalidationSummary => ({
    release,
    checked: r.checked,
    reopened: r.reopened.length,
    dry_run: options.dryRun,
    items: r.reopened.map(({ before, after }) => ({
      id: before.id,
      reason: after.revalidation!.reason,
      previous_concept_id: after.revalidation!.previous_concept_id,
      suggested_concept_id: after.revalidation!.suggested_via ? after.target_concept_id : null,
      suggested_via: after.revalidation!.suggested_via,
    })),
  });
  if (options.dryRun) return summarize(plan(stores.conceptItems.list(projectId).items, nowIso()));
  return stores.write(() => {
    const now = nowIso();
    // Read inside the transaction: what is reopened is what is there when it commits.
    const result = plan(stores.conceptItems.list(projectId).items, now);
    for (const { before, after } of result.reopened) {
      // reviewed_at is set: the reopening is a review-side decision that a client's push must not undo
      // (it is skipped unless forced), and the next decision replaces it.
      const next = { ...after, version: before.version + 1, updated_at: now, reviewed_at: now };
      saveChange(
        stores.conceptItems,
        stores.audit,
        projectId,
        before,
        next,
        facts("concept", "revalidate", options.actor, now),
      );
    }
    return summarize(result);
  });
}
