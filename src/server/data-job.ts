// The work of a request that grows with a project's data (imports, exports, revalidation, pulls), as a
// job a data worker (data-worker.ts) runs on its own handle of the LMDB environment, so that the server's
// event loop never holds a 400,000-row import or export. Each job ends as bytes, which the pool streams.
import { AppError, type Problem } from "../errors.js";
import type { ImportFormat } from "../review/import-mappings.js";
import type { Stores } from "../store/env.js";
import type { VocabularyBridge } from "../vocab/bridge.js";
import {
  exportConceptMap,
  exportCrossmap,
  exportSourceToConceptMap,
  importMappings,
  revalidateProject,
} from "./handlers/project-data.js";
import type { Actor } from "./handlers/review.js";
import { presentConceptItem, presentRun, presentSchemaItem } from "./present.js";

/** What a data worker is started with (structured-cloneable). */
export interface DataWorkerConfig {
  dataDir: string;
  durability: Stores["durability"];
  /** The vocabulary index directory (`serve --vocab`), opened by the worker itself. */
  vocab?: string;
}

export type DataJob =
  | {
      kind: "import";
      projectId: string;
      bytes: Uint8Array;
      format: ImportFormat;
      sourceVocabularyId: string | undefined;
      sourceColumn: string | undefined;
      force: boolean;
      actor: Actor;
    }
  | { kind: "export-crossmap"; projectId: string; source: string | undefined }
  | { kind: "export-stcm"; projectId: string; sourceVocabularyId: string | undefined }
  | { kind: "export-concept-map"; projectId: string }
  | { kind: "revalidate"; projectId: string; dryRun: boolean; actor: Actor }
  | {
      kind: "pull";
      what: "schema" | "concept" | "runs";
      projectId: string;
      limit: number | undefined;
      offset: number;
    };

/** The outcome of a job: its bytes (text or JSON), or the error to answer with. */
export type DataResult =
  | { ok: true; bytes: Uint8Array }
  | { ok: false; error: { status: number; code: string; message: string; problems: Problem[] } };

const encoder = new TextEncoder();
const json = (value: unknown): Uint8Array => encoder.encode(JSON.stringify(value));

/** Runs one job against the worker's stores; errors become results, so the pool answers them as thrown. */
export async function runDataJob(
  stores: Stores,
  vocabulary: VocabularyBridge | undefined,
  job: DataJob,
): Promise<DataResult> {
  // The server answered the writes before this job (a project created, items pushed) on its own handle:
  // without a fresh snapshot, a job sent right after could miss them (an import answered 404 for a
  // project created a moment before).
  stores.resetReads();
  try {
    return { ok: true, bytes: await run(stores, vocabulary, job) };
  } catch (err) {
    if (err instanceof AppError) {
      return {
        ok: false,
        error: { status: err.status, code: err.code, message: err.message, problems: err.problems },
      };
    }
    throw err;
  }
}

async function run(
  stores: Stores,
  vocabulary: VocabularyBridge | undefined,
  job: DataJob,
): Promise<Uint8Array> {
  switch (job.kind) {
    case "import":
      return json(
        await importMappings(stores, job.projectId, job.bytes, {
          format: job.format,
          sourceVocabularyId: job.sourceVocabularyId,
          sourceColumn: job.sourceColumn,
          force: job.force,
          actor: job.actor,
          vocabulary,
        }),
      );
    case "export-crossmap":
      return encoder.encode(exportCrossmap(stores, job.projectId, job.source).yaml);
    case "export-stcm":
      return encoder.encode(
        exportSourceToConceptMap(stores, job.projectId, {
          sourceVocabularyId: job.sourceVocabularyId,
          vocabulary,
        }).csv,
      );
    case "export-concept-map":
      return json(exportConceptMap(stores, job.projectId, vocabulary));
    case "revalidate":
      if (!vocabulary)
        throw new AppError(503, "no_vocabulary", "This server has no vocabulary: start it with --vocab DIR");
      return json(
        await revalidateProject(stores, job.projectId, vocabulary, { dryRun: job.dryRun, actor: job.actor }),
      );
    case "pull":
      return json(pull(stores, job));
  }
}

function pull(stores: Stores, job: Extract<DataJob, { kind: "pull" }>) {
  const page = { limit: job.limit ?? Number.POSITIVE_INFINITY, offset: job.offset };
  if (job.what === "runs") {
    const { runs, total } = stores.runs.list(job.projectId, {
      offset: job.offset,
      ...(job.limit === undefined ? {} : { limit: job.limit }),
    });
    return { items: runs.map(presentRun), total };
  }
  if (job.what === "schema") {
    const { items, total } = stores.schemaItems.list(job.projectId, page);
    return { items: items.map(presentSchemaItem), total };
  }
  const { items, total } = stores.conceptItems.list(job.projectId, page);
  return { items: items.map(presentConceptItem), total };
}
