// Cross-map calls on the event loop's side: hand the request text (and a project's reviewed decisions)
// to the map pool, answer with the bytes it sends back, and for project calls record the run (completed
// or failed) before answering.
import { AppError } from "../../errors.js";
import type { Stores } from "../../store/env.js";
import type { CrossMappingRun, DecisionSnapshot } from "../../store/types.js";
import type { RawJsonBody } from "../body.js";
import type { RunInfo } from "../map-job.js";
import type { FinalReply, MapPool } from "../map-pool.js";
import type { DecisionCache } from "./decisions.js";
import { projectNotFound } from "./items.js";

export interface ProjectMapDeps {
  pool: MapPool;
  /** Each project's reviewed decisions, for project-scoped calls. */
  decisions: DecisionCache;
  /** The release of the server's vocabulary (`--vocab`), recorded with each run; null without one. */
  vocabularyRelease: string | null;
}

/** The job's text, marked when it held bytes that are not UTF-8 (the worker names their fields). */
const jobText = (body: RawJsonBody | undefined) => ({
  text: body?.text,
  ...(body?.marked ? { marked: true } : {}),
});

const fromWorker = (reply: Extract<FinalReply, { kind: "error" }>) =>
  new AppError(reply.status, reply.code, reply.message, reply.problems);

/** The stateless call: the response as JSON bytes. */
export async function mapStateless(
  pool: MapPool,
  body: RawJsonBody | undefined,
  client = "",
): Promise<Uint8Array> {
  const reply = await pool.run({ ...jobText(body), project: "none" }, undefined, client);
  switch (reply.kind) {
    case "done":
      return reply.json;
    case "error":
      throw fromWorker(reply);
    case "failed":
      throw new AppError(500, "mapping_failed", `Mapping failed: ${reply.reason}`);
    default:
      throw new AppError(500, "mapping_failed", "Mapping failed: no result");
  }
}

/**
 * The project call, with the project's reviewed decisions applied in the worker. Validation problems
 * (401-422, and 404 for an unknown project, checked after the body) record nothing. Once mapping has
 * begun, the run is recorded whatever happens, with the decisions' snapshot and the vocabulary release:
 * `completed` with its issue count, or `failed` with why (a mapping error, the time or memory limit).
 */
export async function mapAndRecord(
  stores: Stores,
  projectId: string,
  body: RawJsonBody | undefined,
  deps: ProjectMapDeps,
  client = "",
): Promise<Uint8Array> {
  const exists = stores.projects.exists(projectId);
  const decisions = exists ? await deps.decisions.of(stores, projectId) : undefined;
  let started: RunInfo | undefined;
  let reply: FinalReply;
  const record = (run: RunInfo) => {
    const { unreviewed, ...rest } = run;
    const snapshot: DecisionSnapshot = {
      items: decisions?.items ?? 0,
      sha256: decisions?.sha256 ?? "",
      unreviewed,
    };
    return { ...rest, decision_snapshot: snapshot, vocabulary_release: deps.vocabularyRelease };
  };
  const recordFailed = (run: RunInfo, reason: string) =>
    stores.runs.record(projectId, { ...record(run), status: "failed", error: reason });
  try {
    reply = await deps.pool.run(
      {
        ...jobText(body),
        project: exists ? "exists" : "missing",
        ...(decisions ? { decisions: { key: decisions.key, entries: decisions.entries } } : {}),
      },
      (run) => {
        started = run;
      },
      client,
    );
  } catch (err) {
    if (started === undefined || !(err instanceof AppError)) throw err;
    const failed = await recordFailed(started, err.message);
    const note = `${err.message}; run ${failed.id} recorded as failed`;
    throw new AppError(
      err.status,
      err.code,
      note,
      err.problems.map((p) => ({ ...p, message: `${p.message}; run ${failed.id} recorded as failed` })),
    );
  }
  switch (reply.kind) {
    case "error":
      throw fromWorker(reply);
    case "valid":
      throw projectNotFound(projectId);
    case "failed": {
      if (started === undefined) throw new AppError(500, "mapping_failed", `Mapping failed: ${reply.reason}`);
      const failed = await recordFailed(started, reply.reason);
      throw new AppError(
        500,
        "mapping_failed",
        `Mapping failed (run ${failed.id} recorded as failed): ${reply.reason}`,
      );
    }
    case "done": {
      if (started === undefined) throw new AppError(500, "mapping_failed", "Mapping failed: no run");
      const run = record(started);
      const stored: CrossMappingRun = await stores.runs.record(projectId, {
        ...run,
        status: "completed",
        issue_count: reply.issueCount,
      });
      return withTail(reply.json, { run_id: stored.id, decision_snapshot: run.decision_snapshot });
    }
  }
}

/** `{...}` with `members` appended as its last members, without parsing the (possibly large) response again. */
function withTail(json: Uint8Array, members: Record<string, unknown>): Uint8Array {
  const tail = new TextEncoder().encode(`,${JSON.stringify(members).slice(1)}`);
  const out = new Uint8Array(json.length - 1 + tail.length);
  out.set(json.subarray(0, json.length - 1));
  out.set(tail, json.length - 1);
  return out;
}
