// A bulk run as workers and a resuming coordinator see it: the crossmaps' text (workers compile it, keyed by
// its content hash), the stage options, and what the input was, stored in the runs stream under the run id.
import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { AppError } from "../errors.js";
import type { InputPlan } from "../pipeline/inputs.js";
import type { PlanSpec } from "../pipeline/load-plan.js";
import type { StageOptions } from "../pipeline/stage.js";
import { version } from "../version.js";
import { type Nats, natsFailure } from "./jetstream.js";
import type { Link } from "./link.js";
import { RUN_STREAM, runStateSubject, runSubject } from "./names.js";

export interface RunDescriptor {
  format: 1;
  run: string;
  created: string;
  /** Workers refuse a run of another crossmap version: the output could differ. */
  crossmap_version: string;
  crossmaps: { file: string; sha256: string; text: string }[];
  from: string | null;
  to: string | null;
  /** The crossmaps' parameters as given with --param (defaults are in the crossmaps' text). */
  parameters: Record<string, string> | null;
  /**
   * A project's reviewed decisions (`map --project`): the overlay is part of the compiled plan, so workers
   * compile it from these entries, and their hash is part of the plan key.
   */
  decisions: NonNullable<PlanSpec["decisions"]> | null;
  /** The crossmaps' hashes, parameters, decisions and the stage options: equal keys compile to equal mappers. */
  plan_key: string;
  stage: StageOptions;
  /** The coordinator's custom transform module (workers load their own --transforms; the hash must match). */
  transforms: { file: string; sha256: string } | null;
  /** The coordinator's vocabulary index, by its release (workers then need --vocab, of the same release). */
  vocabulary: { release: string | null } | null;
  inputs: {
    file: string;
    format: string;
    entity: string | null;
    size: number | null;
    mtime_ms: number | null;
  }[];
  batch: { bytes: number; records: number };
}

export type RunStateName = "running" | "stopped" | "completed" | "failed";

export interface RunState {
  state: RunStateName;
  updated: string;
  batches?: number;
  reason?: string;
}

export const sha256 = (data: string | Uint8Array): string => createHash("sha256").update(data).digest("hex");

export async function describeRun(options: {
  run: string;
  spec: PlanSpec;
  stage: StageOptions;
  inputs: readonly InputPlan[];
  batch: { bytes: number; records: number };
}): Promise<RunDescriptor> {
  const crossmaps = [];
  for (const leg of options.spec.crossmaps) {
    const { file, text } = typeof leg === "string" ? { file: leg, text: await readFile(leg, "utf8") } : leg;
    crossmaps.push({ file, sha256: sha256(text), text });
  }
  const transforms = options.spec.transforms
    ? { file: options.spec.transforms, sha256: sha256(await readFile(options.spec.transforms)) }
    : null;
  const inputs = [];
  for (const i of options.inputs) {
    // A folder member that cannot be read (a link to nothing) is an issue of the run, read as such again.
    const info = i.file === "-" || i.unreadable !== undefined ? undefined : await stat(i.file);
    inputs.push({
      file: i.file,
      format: i.format,
      entity: i.entity ?? null,
      size: info ? info.size : null,
      mtime_ms: info ? Math.floor(info.mtimeMs) : null,
    });
  }
  return {
    format: 1,
    run: options.run,
    created: new Date().toISOString(),
    crossmap_version: version,
    crossmaps,
    from: options.spec.from ?? null,
    to: options.spec.to ?? null,
    parameters: options.spec.parameters ?? null,
    decisions: options.spec.decisions ?? null,
    plan_key: planKey(
      compiledKey(
        crossmaps.map((c) => c.sha256),
        options.spec.parameters,
        options.spec.decisions,
      ),
      options.stage,
    ),
    stage: options.stage,
    transforms,
    vocabulary: options.spec.vocab ? { release: await vocabularyRelease(options.spec.vocab) } : null,
    inputs,
    batch: options.batch,
  };
}

/** The release of the index at `dir` (opened read-only and kept open, as the plan's own handle is). */
export async function vocabularyRelease(dir: string): Promise<string | null> {
  const { openVocabulary } = await import("../vocab/lmdb-bridge.js");
  return openVocabulary(dir).release ?? null;
}

/** What one compiled plan depends on: the crossmaps' text, the parameters given and a project's decisions. */
export function compiledKey(
  crossmapHashes: readonly string[],
  parameters: Record<string, string> | null | undefined,
  decisions?: PlanSpec["decisions"] | null,
): string {
  const given = parameters ? Object.entries(parameters).sort(([a], [b]) => (a < b ? -1 : 1)) : [];
  let key = crossmapHashes.join(",");
  if (given.length > 0) key += `;${JSON.stringify(given)}`;
  // The entries come in the project's item order, which is stable for one set of decisions.
  if (decisions) key += `;decisions ${sha256(JSON.stringify(decisions))}`;
  return key;
}

export function planKey(compiled: string, stage: StageOptions): string {
  return sha256(`${compiled};${stage.onError};${stage.perEntity}`).slice(0, 32);
}

export async function publishRun(nats: Nats, d: RunDescriptor): Promise<void> {
  const body = JSON.stringify(d);
  if (body.length > nats.maxBody) {
    throw new AppError(
      400,
      "nats_payload",
      `the run's crossmaps${d.decisions ? " and project decisions" : ""} take ${body.length} bytes, more than the NATS server takes in one message (${nats.maxBody}); raise its max_payload`,
    );
  }
  await nats.js.publish(runSubject(d.run), body).catch((err: unknown) => {
    throw natsFailure(`cannot store run ${d.run}`, err);
  });
}

export async function readRun(nats: Nats, run: string): Promise<RunDescriptor | undefined> {
  const m = await nats.jsm.streams.getMessage(RUN_STREAM, { last_by_subj: runSubject(run) });
  return m ? (m.json() as RunDescriptor) : undefined;
}

export async function writeState(
  nats: Nats,
  run: string,
  state: Omit<RunState, "updated">,
  link?: Link,
): Promise<void> {
  const s: RunState = { ...state, updated: new Date().toISOString() };
  const write = () => nats.js.publish(runStateSubject(run), JSON.stringify(s));
  // The subject keeps one message: writing it twice is harmless.
  await (link ? link.retry(`cannot store the state of run ${run}`, write) : write());
}

export async function readState(nats: Nats, run: string): Promise<RunState | undefined> {
  const m = await nats.jsm.streams.getMessage(RUN_STREAM, { last_by_subj: runStateSubject(run) });
  return m ? (m.json() as RunState) : undefined;
}

/**
 * Why a run cannot be resumed with this command line, or undefined when it can: the same crossmaps, stage
 * options and batch size over the same, unchanged input files give the same batches.
 */
export function resumeMismatch(stored: RunDescriptor, now: RunDescriptor): string | undefined {
  if (stored.crossmap_version !== now.crossmap_version) {
    return `it was started by crossmap ${stored.crossmap_version}, this is ${now.crossmap_version}`;
  }
  if (stored.plan_key !== now.plan_key) {
    return "its crossmaps, --param values, project decisions or output options (--on-error, --out-dir) differ from this command's";
  }
  if (JSON.stringify(stored.batch) !== JSON.stringify(now.batch)) return "its batch size differs";
  const a = stored.inputs;
  const b = now.inputs;
  if (a.length !== b.length || a.some((x, i) => x.file !== b[i]!.file)) {
    return `its inputs were ${a.map((x) => x.file).join(", ")}`;
  }
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.file === "-") return "it read stdin, which cannot be read again";
    if (x.size !== y.size || x.mtime_ms !== y.mtime_ms || x.format !== y.format || x.entity !== y.entity) {
      return `${x.file} changed since (or is read differently)`;
    }
  }
  return undefined;
}
