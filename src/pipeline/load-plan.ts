// Builds a mapping plan from what can cross a thread boundary: crossmap file paths and module paths.
// The main thread and every worker call loadPlan once, so each thread compiles the crossmaps itself.
import { resolve, sep } from "node:path";
import { loadBuiltinCrossmap } from "../crossmap/builtin.js";
import { BUILTIN_DIR, findBuiltinCrossmap, listBuiltinCrossmaps } from "../crossmap/catalog.js";
import type { Crossmap } from "../crossmap/crossmap.js";
import { AppError, type Problem } from "../errors.js";
import { builtinTransforms } from "../transforms/builtins.js";
import { loadTransformModule } from "../transforms/custom.js";
import {
  compileOverlay,
  type OverlayEntry,
  OverlaySlot,
  type UnreviewedMode,
} from "../transforms/overlay.js";
import { composePlan, type MappingPlan } from "./plan.js";

/** A crossmap sent as text (to a NATS worker), named by the file it was read from for error messages. */
export interface InlineCrossmap {
  file: string;
  text: string;
}

export interface PlanSpec {
  /** Crossmaps, one per leg: [from->to], or [from->via, via->to]. Absolute paths, or their text. */
  crossmaps: (string | InlineCrossmap)[];
  /** A module registering custom transforms. */
  transforms?: string;
  /** A vocabulary index directory. */
  vocab?: string;
  /** Standards the user asked for, checked against the loaded crossmaps. */
  from?: string;
  to?: string;
  /** Values of the crossmaps' parameters (`--param name=value`). */
  parameters?: Record<string, string>;
  /** A project's reviewed decisions (`map --project`): every thread compiles the same overlay from them. */
  decisions?: { entries: OverlayEntry[]; unreviewed: UnreviewedMode };
}

export interface PlanFlags {
  from: string | undefined;
  to: string | undefined;
  via: string | undefined;
  crossmaps: string[];
  transforms: string | undefined;
  vocab: string | undefined;
  parameters?: Record<string, string>;
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
  if (flags.parameters && Object.keys(flags.parameters).length > 0) spec.parameters = flags.parameters;
  return spec;
}

function builtinCrossmap(from: string, to: string): string {
  const entry = findBuiltinCrossmap(from, to);
  if (entry) return entry.path;
  const known = listBuiltinCrossmaps()
    .map((e) => `${e.source} -> ${e.target}`)
    .join(", ");
  throw new AppError(
    400,
    "no_crossmap",
    `no built-in crossmap from ${from} to ${to} (built-in: ${known || "none"}); give --crossmap FILE`,
  );
}

/** Loads and compiles the crossmap of each leg, with the plan's transforms and vocabulary. */
export async function loadLegs(spec: PlanSpec, warnings?: Problem[]): Promise<Crossmap[]> {
  let transforms = builtinTransforms();
  if (spec.transforms) {
    transforms = transforms.extend();
    await loadTransformModule(spec.transforms, transforms);
  }
  // Read-only and memory-mapped: every thread opens its own handle on the same index, for the process's life.
  // Imported only when asked for: loading lmdb costs each thread ~30 ms CPU, a worker's start-up included.
  const vocabulary = spec.vocab
    ? (await import("../vocab/lmdb-bridge.js")).openVocabulary(spec.vocab)
    : undefined;
  // Compiled once per thread; every record then costs the transforms one Map lookup per code.
  const slot = spec.decisions ? new OverlaySlot() : undefined;
  if (slot && spec.decisions)
    slot.current = compileOverlay(spec.decisions.entries, spec.decisions.unreviewed);
  const legs: Crossmap[] = [];
  for (const leg of spec.crossmaps) {
    const file = typeof leg === "string" ? leg : leg.file;
    const builtin = resolve(file).startsWith(resolve(BUILTIN_DIR) + sep);
    const options = {
      transforms,
      ...(vocabulary ? { vocabulary } : {}),
      ...(spec.parameters ? { parameters: spec.parameters } : {}),
      ...(slot ? { overlay: slot } : {}),
    };
    if (typeof leg === "string" && builtin) {
      legs.push(await loadBuiltinCrossmap(file, options));
      continue;
    }
    // Imported only for a crossmap of the user's, or one sent inline by a NATS coordinator: the YAML parser
    // costs start-up a built-in does not pay.
    const { loadCrossmapFile, parseCrossmap } = await import("../crossmap/load.js");
    const checked = { ...options, ...(warnings && !builtin ? { warnings } : {}) };
    legs.push(
      typeof leg === "string"
        ? await loadCrossmapFile(leg, checked)
        : parseCrossmap(leg.text, { ...checked, file: leg.file }),
    );
  }
  checkParameters(
    legs.map((l) => l.document.parameters ?? {}),
    spec.parameters ?? {},
  );
  return legs;
}

/**
 * Loads and compiles every leg; problems in a crossmap surface as the engine's located AppError. With
 * `warnings`, the legs that are not built-in (those are checked by the test suite) are also checked
 * against the standard definitions, and what they lack is pushed there.
 */
export async function loadPlan(
  spec: PlanSpec,
  warnings?: Problem[],
  /** Whether input of this source standard comes in units (HL7 v2 messages): see ComposeOptions. */
  units?: (source: string) => boolean,
): Promise<MappingPlan> {
  const legs = await loadLegs(spec, warnings);
  const plan = composePlan(legs, { units: legs[0] !== undefined && units?.(legs[0].source) === true });
  if ((spec.from && spec.from !== plan.source) || (spec.to && spec.to !== plan.target)) {
    throw new AppError(
      400,
      "usage",
      `the crossmap maps ${plan.source} -> ${plan.target}, not ${spec.from ?? plan.source} -> ${spec.to ?? plan.target}`,
    );
  }
  return plan;
}

/** Every given parameter is declared by some leg, and every declared one without a default is given. */
function checkParameters(
  declared: Record<string, { default?: unknown }>[],
  given: Record<string, string>,
): void {
  const all = new Map<string, { default?: unknown }>();
  for (const d of declared) for (const [k, v] of Object.entries(d)) all.set(k, v);
  for (const name of Object.keys(given)) {
    if (!all.has(name)) {
      const known = [...all.keys()];
      throw new AppError(
        400,
        "usage",
        `--param ${name}: the crossmap has no parameter "${name}" (${known.length > 0 ? `parameters: ${known.join(", ")}` : "it declares none"})`,
      );
    }
  }
  for (const [name, p] of all) {
    if (p.default === undefined && given[name] === undefined) {
      throw new AppError(
        400,
        "usage",
        `the crossmap needs --param ${name}=VALUE (parameter "${name}" has no default)`,
      );
    }
  }
}
