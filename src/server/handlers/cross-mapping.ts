// Cross-mapping calls: pick the compiled crossmap (built-in or sent as YAML), map the records in order,
// and for project calls record the run before answering.
import { mapBatch } from "../../crossmap/batch.js";
import type { CrossmapProvider, ProvidedCrossmap } from "../../crossmap/provider.js";
import type { SourceRecord } from "../../crossmap/types.js";
import { AppError, type Problem } from "../../errors.js";
import type { Stores } from "../../store/env.js";
import type { CrossMappingRun } from "../../store/types.js";
import type { UnreviewedMode } from "../../transforms/overlay.js";
import type { DecisionCache } from "./decisions.js";

export interface CrossMapRequest {
  source_standard: string;
  target_standard: string;
  source_entity: string;
  records: SourceRecord[];
  crossmap?: string | undefined;
  parameters?: Record<string, string> | undefined;
  /** Project-scoped calls: whether suggestions awaiting review are applied (default ignore). */
  unreviewed?: UnreviewedMode | undefined;
}

export interface CrossMapDeps {
  crossmaps: CrossmapProvider;
  maxRecords: number;
  /** Each project's compiled decisions, for project-scoped calls. */
  decisions: DecisionCache;
  /** The release of the server's vocabulary (`--vocab`), recorded with each run; null without one. */
  vocabularyRelease: string | null;
}

const invalid = (problems: Problem[]) => new AppError(422, "validation_error", "Invalid request", problems);

/** Caller YAML problems as 422 entries located in the document: loc body.crossmap.<key path>, msg with line. */
function crossmapProblems(err: AppError): AppError {
  return invalid(
    err.problems.map((p) => ({
      path: ["body", "crossmap", ...p.path],
      message: p.line ? `line ${p.line}, column ${p.column ?? 1}: ${p.message}` : p.message,
      code: `value_error.crossmap.${p.code}`,
    })),
  );
}

/** Parameters the crossmap does not declare, or required ones left out: 422 entries at body.parameters.<name>. */
function parameterProblems(err: AppError): AppError {
  return invalid(
    err.problems.map((p) => ({
      path: ["body", ...p.path],
      message: p.message,
      code: p.code === "missing" ? "value_error.missing" : "value_error.crossmap.unknown_parameter",
    })),
  );
}

export function resolveCrossmap(req: CrossMapRequest, deps: CrossMapDeps): ProvidedCrossmap {
  if (req.records.length > deps.maxRecords) {
    throw new AppError(
      413,
      "too_many_records",
      `Too many records: ${req.records.length}; the limit is ${deps.maxRecords} per call`,
    );
  }
  let provided: ProvidedCrossmap;
  if (req.crossmap !== undefined) {
    try {
      provided = deps.crossmaps.fromText(req.crossmap, "crossmap", req.parameters);
    } catch (err) {
      if (err instanceof AppError && err.code === "invalid_parameters") throw parameterProblems(err);
      if (err instanceof AppError && err.status === 422) throw crossmapProblems(err);
      throw err;
    }
    const { source, target } = provided.crossmap;
    const mismatch: Problem[] = [];
    if (source !== req.source_standard) {
      mismatch.push({
        path: ["body", "source_standard"],
        message: `does not match the crossmap's source "${source}"`,
        code: "value_error.crossmap.mismatch",
      });
    }
    if (target !== req.target_standard) {
      mismatch.push({
        path: ["body", "target_standard"],
        message: `does not match the crossmap's target "${target}"`,
        code: "value_error.crossmap.mismatch",
      });
    }
    if (mismatch.length > 0) throw invalid(mismatch);
  } else {
    try {
      provided = deps.crossmaps.builtin(req.source_standard, req.target_standard, req.parameters);
    } catch (err) {
      if (err instanceof AppError && err.code === "invalid_parameters") throw parameterProblems(err);
      throw err;
    }
  }
  if (!provided.crossmap.hasEntity(req.source_entity)) {
    const known = provided.crossmap.entities().join(", ");
    throw invalid([
      {
        path: ["body", "source_entity"],
        message: `unknown source entity "${req.source_entity}" for ${req.source_standard} -> ${req.target_standard}; known: ${known}`,
        code: "value_error.unknown_entity",
      },
    ]);
  }
  return provided;
}

export function mapRequest(req: CrossMapRequest, provided: ProvidedCrossmap) {
  const batch = mapBatch(provided.crossmap, req.source_entity, req.records);
  return {
    results: batch.results,
    source_standard: req.source_standard,
    target_standard: req.target_standard,
    source_entity: req.source_entity,
    target_entity: batch.targetEntity,
    total: batch.results.length,
    // Only for entities that may produce several records or none (see docs/api.md): the spec's one-to-one
    // response stays exactly as it was.
    ...(batch.entities ? { result_entities: batch.entities, produced: batch.produced } : {}),
    issues: batch.issues,
  };
}

/**
 * Maps with the project's reviewed decisions applied and records the run, with the decisions' snapshot
 * and the vocabulary release; a mapping that throws is recorded as `failed` with its reason, then
 * answered 500.
 */
export async function mapAndRecord(
  stores: Stores,
  projectId: string,
  req: CrossMapRequest,
  deps: CrossMapDeps,
) {
  const provided = resolveCrossmap(req, deps);
  const decisions = await deps.decisions.of(stores, projectId, req.unreviewed ?? "ignore");
  const run = {
    source_standard: req.source_standard,
    target_standard: req.target_standard,
    source_entity: req.source_entity,
    target_entity: provided.crossmap.targetEntity(req.source_entity),
    record_count: req.records.length,
    crossmap_file: provided.file,
    decision_snapshot: decisions.snapshot,
    vocabulary_release: deps.vocabularyRelease,
  };
  let response: ReturnType<typeof mapRequest>;
  try {
    // Synchronous: the overlay is this project's for exactly this batch.
    response = provided.crossmap.withOverlay(decisions.overlay, () => mapRequest(req, provided));
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    const failed = await stores.runs.record(projectId, { ...run, status: "failed", error: reason });
    throw new AppError(
      500,
      "mapping_failed",
      `Mapping failed (run ${failed.id} recorded as failed): ${reason}`,
    );
  }
  const stored: CrossMappingRun = await stores.runs.record(projectId, {
    ...run,
    status: "completed",
    issue_count: response.issues.length,
  });
  return { ...response, run_id: stored.id, decision_snapshot: decisions.snapshot };
}
