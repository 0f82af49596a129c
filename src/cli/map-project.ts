// `crossmap map --project P`: the project's reviewed concept decisions going into the plan, and the run
// going into the project's history afterwards, with the decisions' snapshot and the vocabulary release.
import { basename } from "node:path";
import { BUILTIN_DIR } from "../crossmap/catalog.js";
import type { PlanSpec } from "../pipeline/load-plan.js";
import type { MappingPlan } from "../pipeline/plan.js";
import type { RunSummary } from "../pipeline/summary.js";
import { projectDecisions } from "../review/decisions.js";
import { openStores } from "../store/env.js";
import type { CrossMappingRun, DecisionSnapshot } from "../store/types.js";
import type { UnreviewedMode } from "../transforms/overlay.js";
import { prepareDataDir, requireProject } from "./data-dir.js";

export interface ProjectRun {
  dataDir: string;
  projectId: string;
  snapshot: DecisionSnapshot;
  /** Items another item of the same code overrides (see review/decisions.ts). */
  shadowed: string[];
}

/** Reads the project's concept items once and puts their decisions into the plan every thread compiles. */
export async function withProjectDecisions(
  spec: PlanSpec,
  dataDir: string,
  projectId: string,
  unreviewed: UnreviewedMode,
): Promise<ProjectRun> {
  // Opening LMDB creates a missing directory: refuse first, as `projects` and `keys` do without --init.
  prepareDataDir(dataDir, false, false);
  const stores = openStores(dataDir);
  try {
    requireProject(stores, projectId, dataDir);
    const { entries, snapshot, shadowed } = projectDecisions(
      stores.conceptItems.list(projectId).items,
      unreviewed,
    );
    spec.decisions = { entries, unreviewed };
    return { dataDir, projectId, snapshot, shadowed };
  } finally {
    await stores.close();
  }
}

/** Records the finished run in the project's history; returns it. */
export async function recordProjectRun(
  project: ProjectRun,
  spec: PlanSpec,
  facts: {
    source: string;
    target: string;
    entities: { source: string; target: string }[];
    summary: RunSummary;
    fatal: string | undefined;
  },
): Promise<CrossMappingRun> {
  const { summary } = facts;
  const join = (names: string[]) => [...new Set(names)].join(",") || "*";
  const stores = openStores(project.dataDir);
  try {
    return await stores.runs.record(project.projectId, {
      source_standard: facts.source,
      target_standard: facts.target,
      source_entity: join(facts.entities.map((e) => e.source)),
      target_entity: join(facts.entities.map((e) => e.target)),
      record_count: summary.records_in,
      status: facts.fatal === undefined ? "completed" : "failed",
      ...(facts.fatal === undefined ? {} : { error: `stopped at the first error: ${facts.fatal}` }),
      // Built-in crossmaps by their catalog name (as the server records them), others by their path.
      crossmap_file: spec.crossmaps
        .map((leg) => (typeof leg === "string" ? leg : leg.file))
        .map((f) => (f.startsWith(BUILTIN_DIR) ? basename(f) : f))
        .join(" + "),
      issue_count: Object.values(summary.issues_by_code).reduce((n, k) => n + k, 0),
      decision_snapshot: project.snapshot,
      vocabulary_release: spec.vocab ? await releaseOf(spec.vocab) : null,
    });
  } finally {
    await stores.close();
  }
}

async function releaseOf(vocab: string): Promise<string | null> {
  const { openVocabulary } = await import("../vocab/lmdb-bridge.js");
  const bridge = openVocabulary(vocab);
  try {
    return bridge.release;
  } finally {
    await bridge.close();
  }
}

/** What `crossmap map` calls when a run is over: records it in the project (and says so unless quiet). */
export type RunRecorder = (
  summary: RunSummary,
  fatal: string | undefined,
  entities: (string | undefined)[],
) => Promise<CrossMappingRun>;

export function projectRecorder(
  project: ProjectRun,
  spec: PlanSpec,
  plan: MappingPlan,
  quiet: boolean,
): RunRecorder {
  return async (summary, fatal, entities) => {
    const run = await recordProjectRun(project, spec, {
      source: plan.source,
      target: plan.target,
      entities: entities.map((e) => ({
        source: e ?? "*",
        target: (e === undefined ? undefined : plan.mapperFor(e)?.targetEntity) ?? "*",
      })),
      summary,
      fatal,
    });
    if (!quiet) {
      const s = project.snapshot;
      process.stderr.write(
        `crossmap map: recorded run ${run.id} in project ${project.projectId}: ${s.items} concept items ` +
          `(sha256 ${s.sha256.slice(0, 12)}…, unreviewed ${s.unreviewed}), vocabulary release ${run.vocabulary_release ?? "none"}\n`,
      );
      if (project.shadowed.length > 0) {
        const some = project.shadowed.slice(0, 5).join(", ");
        process.stderr.write(
          `crossmap map: ${project.shadowed.length} concept item(s) not applied: another item of the same code takes precedence (${some}${project.shadowed.length > 5 ? ", …" : ""})\n`,
        );
      }
    }
    return run;
  };
}
