// Builds a mapping plan from what can cross a thread boundary: crossmap file paths and module paths.
// The main thread and every worker call loadPlan once, so each thread compiles the crossmaps itself.
import { resolve } from "node:path";
import { AppError } from "../errors.js";
import type { MappingPlan } from "./plan.js";

export interface PlanSpec {
  /** Crossmap files, one per leg: [from->to], or [from->via, via->to]. Absolute paths. */
  crossmaps: string[];
  /** A module registering custom transforms. */
  transforms?: string;
  /** A vocabulary index directory. */
  vocab?: string;
  /** Standards the user asked for, checked against the loaded crossmaps. */
  from?: string;
  to?: string;
}

export interface PlanFlags {
  from: string | undefined;
  to: string | undefined;
  via: string | undefined;
  crossmaps: string[];
  transforms: string | undefined;
  vocab: string | undefined;
}

/** Turns the command line's choice of crossmaps into file paths (built-in ones from the catalog). */
export async function resolvePlanSpec(flags: PlanFlags): Promise<PlanSpec> {
  const legs = flags.via ? 2 : 1;
  let crossmaps: string[];
  if (flags.crossmaps.length > 0) {
    if (flags.crossmaps.length !== legs) {
      throw new AppError(
        400,
        "usage",
        flags.via
          ? "with --via, give --crossmap twice (first leg, then second leg) or not at all"
          : "--crossmap may be given once (twice only with --via)",
      );
    }
    crossmaps = flags.crossmaps.map((f) => resolve(f));
  } else {
    if (!flags.from || !flags.to) {
      throw new AppError(400, "usage", "--from and --to are required unless --crossmap is given");
    }
    const pairs: [string, string][] = flags.via
      ? [
          [flags.from, flags.via],
          [flags.via, flags.to],
        ]
      : [[flags.from, flags.to]];
    crossmaps = pairs.map(([from, to]) => builtinCrossmap(from, to));
  }
  const spec: PlanSpec = { crossmaps };
  if (flags.transforms) spec.transforms = resolve(flags.transforms);
  if (flags.vocab) spec.vocab = resolve(flags.vocab);
  if (flags.from) spec.from = flags.from;
  if (flags.to) spec.to = flags.to;
  return spec;
}

function builtinCrossmap(from: string, to: string): string {
  throw new AppError(400, "no_crossmap", `no built-in crossmap from ${from} to ${to}`);
}

export async function loadPlan(_spec: PlanSpec): Promise<MappingPlan> {
  throw new AppError(500, "engine_missing", "the crossmap engine is not available in this build");
}
