// One cross-map call, from the request's JSON text to the response's bytes: parse, validate, pick the
// crossmap (built-in or sent as YAML), map in order, serialise. Runs in a map worker (map-worker.ts), so
// that no part of it holds the server's event loop.
import { mapBatch } from "../crossmap/batch.js";
import { CrossmapProvider, type ProvidedCrossmap } from "../crossmap/provider.js";
import { canonicalStandard, standardIds } from "../crossmap/standard-names.js";
import type { SourceRecord } from "../crossmap/types.js";
import { AppError, type Problem } from "../errors.js";
import { parseJson, stringifyJson } from "../pipeline/json.js";
import {
  type ConceptOverlay,
  compileOverlay,
  type OverlayEntry,
  type UnreviewedMode,
} from "../transforms/overlay.js";
import type { VocabularyBridge } from "../vocab/bridge.js";
import { checkJsonDepth, invalidJson } from "./json-depth.js";
import { crossMapBody, projectCrossMapBody } from "./schemas.js";
import { invalidUtf8 } from "./utf8-body.js";
import { toProblems } from "./validate.js";

export interface CrossMapRequest {
  source_standard: string;
  target_standard: string;
  source_entity: string;
  records: SourceRecord[];
  crossmap?: string | undefined;
  parameters?: Record<string, string> | undefined;
  /** Project calls: whether suggestions awaiting review are applied (default ignore). */
  unreviewed?: UnreviewedMode | undefined;
}

/** What a worker is started with (structured-cloneable). */
export interface MapJobConfig {
  /** Most records one call may carry; more get 413. */
  maxRecords: number;
  /** A vocabulary index directory, opened by each worker. */
  vocab?: string;
  /** Where built-in crossmaps live (tests); default the package's crossmaps/. */
  builtinDir?: string;
}

/** `project`: "none" for the stateless call; "missing" asks only for validation (then 404). */
export interface MapJob {
  id: number;
  text: string | undefined;
  /** The text holds bytes that were not UTF-8, marked (utf8-body.ts): the answer is a 422 naming them. */
  marked?: boolean;
  project: "none" | "exists" | "missing";
  /**
   * A project's reviewed decisions: `entries` only when the worker does not hold `key` yet (the pool
   * keeps the same record of keys as the worker, see `touchKey`).
   */
  decisions?: { key: string; entries?: OverlayEntry[] };
}

/** Decision sets a worker keeps compiled; the pool's record of them follows the same rule. */
export const DECISION_KEYS = 16;

/**
 * Marks `key` as just used in `held` (insertion order = recency), adding it with `value` when absent and
 * dropping the least recently used beyond DECISION_KEYS. Returns whether it was held already. The pool
 * and the worker call it in the same order for the same jobs, so their records agree.
 */
export function touchKey<T>(held: Map<string, T>, key: string, value: () => T): boolean {
  const had = held.get(key);
  held.delete(key);
  if (had !== undefined) {
    held.set(key, had);
    return true;
  }
  held.set(key, value());
  if (held.size > DECISION_KEYS) held.delete(held.keys().next().value as string);
  return false;
}

/** Enough to record the run, known once the request is valid and its crossmap loaded. */
export interface RunInfo {
  source_standard: string;
  target_standard: string;
  source_entity: string;
  target_entity: string;
  record_count: number;
  crossmap_file: string | null;
  /** Project calls: the request's mode for suggestions awaiting review. */
  unreviewed: UnreviewedMode;
}

export type MapReply =
  | { id: number; kind: "started"; run: RunInfo }
  | { id: number; kind: "error"; status: number; code: string; message: string; problems: Problem[] }
  | { id: number; kind: "valid" }
  | { id: number; kind: "done"; json: Uint8Array; issueCount: number }
  | { id: number; kind: "failed"; reason: string };

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

export function resolveCrossmap(
  req: CrossMapRequest,
  crossmaps: CrossmapProvider,
  maxRecords: number,
): ProvidedCrossmap {
  if (req.records.length > maxRecords) {
    throw new AppError(
      413,
      "too_many_records",
      `Too many records: ${req.records.length}; the limit is ${maxRecords} per call`,
    );
  }
  let provided: ProvidedCrossmap;
  if (req.crossmap !== undefined) {
    try {
      provided = crossmaps.fromText(req.crossmap, "crossmap", req.parameters);
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
      provided = crossmaps.builtin(req.source_standard, req.target_standard, req.parameters);
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
    target_entity: provided.crossmap.targetEntities(req.source_entity),
    total: batch.results.length,
    // Only for entities that may produce several records or none (see docs/api.md): the spec's one-to-one
    // response stays exactly as it was.
    ...(batch.entities ? { result_entities: batch.entities, produced: batch.produced } : {}),
    issues: batch.issues,
  };
}

/**
 * The request with its standards by id: `fhir`, `omop`, ... (any unambiguous start of a built-in
 * crossmap's standard, any case) as the command line takes them; anything else unchanged.
 */
export function withStandardIds(req: CrossMapRequest, crossmaps: CrossmapProvider): CrossMapRequest {
  const known = standardIds(crossmaps.list());
  return {
    ...req,
    source_standard: canonicalStandard(req.source_standard, known),
    target_standard: canonicalStandard(req.target_standard, known),
  };
}

/** The request body as the schema wants it, or the 422 the server answers for it. */
export function parseCrossMapRequest(
  text: string | undefined,
  project = false,
  marked = false,
): CrossMapRequest {
  let value: unknown;
  if (text !== undefined) {
    if (marked) throw invalidUtf8(text);
    checkJsonDepth(text);
    try {
      value = parseJson(text);
    } catch (err) {
      throw invalidJson(err);
    }
  }
  const parsed = (project ? projectCrossMapBody : crossMapBody).safeParse(value, { reportInput: true });
  if (!parsed.success) throw invalid(parsed.error.issues.flatMap((i) => toProblems(i, "body")));
  return parsed.data;
}

/** Runs jobs against one worker's compiled crossmaps; `send` gets each reply (and a `started` first). */
export function createJobRunner(
  config: MapJobConfig,
  vocabulary?: VocabularyBridge,
): (job: MapJob, send: (reply: MapReply) => void) => void {
  const crossmaps = new CrossmapProvider({
    ...(vocabulary ? { vocabulary } : {}),
    ...(config.builtinDir ? { builtinDir: config.builtinDir } : {}),
  });
  const encoder = new TextEncoder();
  const decisionSets = new Map<string, DecisionSet>();
  return (job, send) => {
    const { id } = job;
    // First, whatever else happens to the job: the pool counted this key as sent (see touchKey).
    const decisions = job.decisions && holdDecisions(decisionSets, job.decisions);
    let started = false;
    try {
      const req = withStandardIds(
        parseCrossMapRequest(job.text, job.project !== "none", job.marked === true),
        crossmaps,
      );
      if (job.project === "missing") return send({ id, kind: "valid" });
      const provided = resolveCrossmap(req, crossmaps, config.maxRecords);
      const run: RunInfo = {
        source_standard: req.source_standard,
        target_standard: req.target_standard,
        source_entity: req.source_entity,
        target_entity: provided.crossmap.targetEntities(req.source_entity),
        record_count: req.records.length,
        crossmap_file: provided.file,
        unreviewed: req.unreviewed ?? "ignore",
      };
      send({ id, kind: "started", run });
      started = true;
      if (job.decisions && !decisions)
        throw new Error("the project's decisions did not reach the map worker");
      const overlay = decisions?.overlay(run.unreviewed);
      const response = provided.crossmap.withOverlay(overlay, () => mapRequest(req, provided));
      // Records may hold bigint ids, which JSON.stringify refuses; stringifyJson writes them digit for digit.
      const json = encoder.encode(stringifyJson(response));
      send({ id, kind: "done", json, issueCount: response.issues.length });
    } catch (err) {
      if (err instanceof AppError && !started) {
        send({
          id,
          kind: "error",
          status: err.status,
          code: err.code,
          message: err.message,
          problems: err.problems,
        });
      } else {
        send({ id, kind: "failed", reason: err instanceof Error ? err.message : String(err) });
      }
    }
  };
}

/** A project's decision entries, compiled per unreviewed mode when first asked for. */
interface DecisionSet {
  overlay(mode: UnreviewedMode): ConceptOverlay;
}

function holdDecisions(
  sets: Map<string, DecisionSet>,
  sent: { key: string; entries?: OverlayEntry[] },
): DecisionSet | undefined {
  const { entries } = sent;
  let missing = false;
  touchKey(sets, sent.key, () => {
    missing = entries === undefined;
    return decisionSet(entries ?? []);
  });
  // Cannot happen while the pool's record agrees with this one; answered as a failed call, never
  // mapped without the project's decisions.
  return missing ? undefined : sets.get(sent.key);
}

function decisionSet(entries: OverlayEntry[]): DecisionSet {
  const compiled = new Map<UnreviewedMode, ConceptOverlay>();
  return {
    overlay(mode) {
      let overlay = compiled.get(mode);
      if (!overlay) {
        overlay = compileOverlay(entries, mode);
        compiled.set(mode, overlay);
      }
      return overlay;
    },
  };
}
