// Reads CONCEPT_RELATIONSHIP.csv into sorted run files. It needs nothing from CONCEPT.csv (relationships
// to concepts outside the index are dropped later, at the merge), so the build runs it in a worker thread
// while the main thread reads concepts: on two cores that hides most of the larger file's parse time.
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { AppError, type Problem } from "../errors.js";
import { detectForm, readTable } from "./athena-files.js";
import {
  indexColumns,
  RELATIONSHIP_COLUMNS,
  type RelationshipRow,
  RowFault,
  readRelationshipRow,
} from "./athena-rows.js";
import { GroupSorter } from "./group-sorter.js";

export interface RelationshipPassInput {
  file: string;
  runsDir: string;
  chunk: number;
  maxProblems: number;
}

export interface RelationshipPassResult {
  /** Run files of (concept_id_1, relationship index, concept_id_2), each sorted by concept_id_1. */
  runs: string[];
  /** Relationship ids by their index. */
  relationshipIds: string[];
  rows: number;
  malformed: number;
  /** Rows with invalid_reason set: deprecated relationships are never followed. */
  invalid: number;
  problems: Problem[];
}

export type PassProgress = (bytesRead: number, totalBytes: number) => void;

export async function relationshipPass(
  input: RelationshipPassInput,
  progress?: PassProgress,
): Promise<RelationshipPassResult> {
  const { file } = input;
  mkdirSync(input.runsDir, { recursive: true });
  const sorter = new GroupSorter(input.runsDir, "relations", input.chunk);
  const relationshipIds: string[] = [];
  const relIndex = new Map<string, number>();
  const problems: Problem[] = [];
  let malformed = 0;
  let invalid = 0;
  const report = (line: number, fault: RowFault) => {
    malformed++;
    if (problems.length < input.maxProblems) problems.push(fault.toProblem(file, line));
  };
  const rows = await readTable(file, detectForm(file), {
    header(columns) {
      const col = indexColumns(file, columns, RELATIONSHIP_COLUMNS);
      const r: RelationshipRow = { c1: 0, c2: 0, relationship: "", invalid: false };
      return (fields, line) => {
        const fault = readRelationshipRow(fields, col, r);
        if (fault) return report(line, fault);
        if (r.invalid) {
          invalid++;
          return;
        }
        let rel = relIndex.get(r.relationship);
        if (rel === undefined) {
          if (relationshipIds.length === 0xffff) {
            throw new AppError(
              422,
              "vocab_too_many_relationships",
              `${file}: more than 65535 distinct relationship_id values`,
            );
          }
          rel = relationshipIds.push(r.relationship) - 1;
          relIndex.set(r.relationship, rel);
        }
        sorter.add(r.c1, rel, r.c2);
      };
    },
    parseError: (line, message) => report(line, new RowFault(undefined, message)),
    ...(progress ? { progress } : {}),
  });
  return { runs: sorter.finish(), relationshipIds, rows, malformed, invalid, problems };
}

const YOUNG_GENERATION_MB = 64;

/** tsx's ESM API (the "import" target of its `tsx/esm/api` export), for running this worker from sources. */
function tsxApi(): string {
  const pkg = createRequire(import.meta.url).resolve("tsx/package.json");
  return pathToFileURL(join(dirname(pkg), "dist/esm/api/index.mjs")).href;
}

interface WorkerMessage {
  type: "progress" | "done" | "error";
  bytesRead?: number;
  totalBytes?: number;
  result?: RelationshipPassResult;
  error?: { status: number; code: string; message: string; problems: Problem[] } | { message: string };
}

/**
 * The pass in a worker thread. From sources (tests, tsx) the worker is the .ts file run through tsx;
 * from dist it is the compiled .js beside this one.
 */
export function relationshipPassInWorker(
  input: RelationshipPassInput,
  progress?: PassProgress,
): {
  result: Promise<RelationshipPassResult>;
  stop: () => Promise<number>;
} {
  const fromSource = import.meta.url.endsWith(".ts");
  // papaparse makes an array and strings per row, all garbage a moment later: a roomier young generation
  // than a worker's default means far fewer scavenges (GC was over a third of the worker's time).
  const resourceLimits = { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB };
  const url = new URL(`./relationship-worker${fromSource ? ".ts" : ".js"}`, import.meta.url);
  // Worker threads take no --import flag, so from sources a tiny bootstrap registers tsx first.
  const worker = fromSource
    ? new Worker(
        `import(${JSON.stringify(tsxApi())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`,
        { eval: true, workerData: input, resourceLimits },
      )
    : new Worker(fileURLToPath(url), { workerData: input, resourceLimits });
  const result = new Promise<RelationshipPassResult>((resolve, reject) => {
    worker.on("message", (m: WorkerMessage) => {
      if (m.type === "progress") progress?.(m.bytesRead!, m.totalBytes!);
      else if (m.type === "done") resolve(m.result!);
      else {
        const e = m.error as { status?: number; code?: string; message: string; problems?: Problem[] };
        reject(e.status ? new AppError(e.status, e.code!, e.message, e.problems) : new Error(e.message));
      }
    });
    worker.on("error", reject);
    worker.on("exit", (code) => {
      if (code !== 0) reject(new Error(`relationship worker exited with code ${code}`));
    });
  });
  return { result, stop: () => worker.terminate() };
}
