// A worker's compiled plans, keyed by the content hash of the run's crossmaps, --param values and project
// decisions: each set is compiled once however many runs and batches use it; each set of stage options
// (--on-error, --out-dir) gets its own batch mapper over it. With --concurrency N the batches go to the
// pipeline's own thread pool (the main thread and N-1 worker threads), each compiling the crossmaps once.
import { readFile } from "node:fs/promises";
import { loadPlan, type PlanSpec } from "../pipeline/load-plan.js";
import type { MappingPlan } from "../pipeline/plan.js";
import { type BatchProcessor, inProcess, startMixed } from "../pipeline/pool.js";
import { createBatchMapper } from "../pipeline/stage.js";
import { version } from "../version.js";
import { compiledKey, type RunDescriptor, sha256, vocabularyRelease } from "./run-record.js";

export interface PlanOptions {
  vocab?: string;
  transforms?: string;
  concurrency: number;
}

/** How many different plans stay compiled; the least recently used one is dropped (and its threads). */
const KEEP = 4;

export class PlanCache {
  /** Compiled crossmaps by their content hashes. */
  private readonly compiled = new Map<string, Promise<MappingPlan | string>>();
  /** Batch processors by plan key (crossmaps and stage options). */
  private readonly plans = new Map<string, Promise<BatchProcessor | string>>();
  private transformsHash: Promise<string | undefined> | undefined;
  private release: Promise<string | null> | undefined;

  constructor(private readonly options: PlanOptions) {}

  /** How many different sets of crossmaps are compiled (on this thread). */
  get size(): number {
    return this.compiled.size;
  }

  /** The processor for a run's batches, or a sentence saying why this worker cannot map the run. */
  async processorFor(d: RunDescriptor): Promise<BatchProcessor | string> {
    const refusal = await this.refusal(d);
    if (refusal) return refusal;
    let entry = this.plans.get(d.plan_key);
    if (entry) {
      // Most recently used last.
      this.plans.delete(d.plan_key);
    } else {
      entry = this.processor(d);
      for (const [key, old] of this.plans) {
        if (this.plans.size < KEEP) break;
        this.plans.delete(key);
        void old.then((p) => (typeof p === "string" ? undefined : p.close()));
      }
      while (this.compiled.size > KEEP) this.compiled.delete(this.compiled.keys().next().value!);
    }
    this.plans.set(d.plan_key, entry);
    return entry;
  }

  async close(): Promise<void> {
    const all = [...this.plans.values()];
    this.plans.clear();
    for (const p of await Promise.all(all)) if (typeof p !== "string") await p.close();
  }

  private async refusal(d: RunDescriptor): Promise<string | undefined> {
    if (d.crossmap_version !== version) {
      return `the run was started by crossmap ${d.crossmap_version}; this worker runs ${version}`;
    }
    if (d.vocabulary && this.options.vocab === undefined) {
      return "the run uses a vocabulary index; start the worker with --vocab DIR (the same index)";
    }
    if (d.vocabulary && this.options.vocab !== undefined) {
      this.release ??= vocabularyRelease(this.options.vocab);
      const mine = await this.release.catch((err: Error) => `unreadable (${err.message})`);
      if (mine !== d.vocabulary.release) {
        return `the run's vocabulary is release ${d.vocabulary.release ?? "unknown"}; this worker's --vocab ${this.options.vocab} is ${mine ?? "unknown"}`;
      }
    }
    this.transformsHash ??= this.options.transforms
      ? readFile(this.options.transforms).then(sha256)
      : Promise.resolve(undefined);
    const mine = await this.transformsHash;
    if (d.transforms && mine !== d.transforms.sha256) {
      return mine === undefined
        ? `the run uses custom transforms (${d.transforms.file}); start the worker with --transforms and the same module`
        : `the run's transform module (${d.transforms.file}) differs from this worker's --transforms ${this.options.transforms}`;
    }
    return undefined;
  }

  private spec(d: RunDescriptor): PlanSpec {
    const spec: PlanSpec = { crossmaps: d.crossmaps.map((c) => ({ file: c.file, text: c.text })) };
    if (d.from) spec.from = d.from;
    if (d.to) spec.to = d.to;
    if (d.parameters) spec.parameters = d.parameters;
    if (d.decisions) spec.decisions = d.decisions;
    if (this.options.vocab) spec.vocab = this.options.vocab;
    if (this.options.transforms && d.transforms) spec.transforms = this.options.transforms;
    return spec;
  }

  private async processor(d: RunDescriptor): Promise<BatchProcessor | string> {
    const key = compiledKey(
      d.crossmaps.map((c) => c.sha256),
      d.parameters,
      d.decisions,
    );
    let plan = this.compiled.get(key);
    if (!plan) {
      plan = loadPlan(this.spec(d)).catch((err: unknown) => {
        const text =
          err instanceof Error && "describe" in err
            ? (err as { describe(): string }).describe()
            : String(err);
        return `cannot compile the run's crossmaps: ${text}`;
      });
      this.compiled.set(key, plan);
    }
    const compiled = await plan;
    if (typeof compiled === "string") return compiled;
    const mapBatch = createBatchMapper(compiled, d.stage);
    const n = this.options.concurrency;
    return n === 1
      ? inProcess(mapBatch)
      : startMixed({ workers: n, mapBatch, init: { plan: this.spec(d), stage: d.stage } });
  }
}
