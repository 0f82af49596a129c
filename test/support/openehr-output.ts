// Test support: runs `crossmap map --to openehr_1.0.4` as a process and reads back what it wrote (every
// top-level object with its file and line, the issues, the summary), plus the golden files of compositions.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { runCli } from "../cli/run-cli.js";

// biome-ignore lint/suspicious/noExplicitAny: tests read canonical JSON at known paths
export type Json = any;

export interface MappedObject {
  /** `COMPOSITION.ndjson:12` */
  where: string;
  value: Json;
}

export interface MapRun {
  code: number | null;
  stderr: string;
  objects: MappedObject[];
  issues: Json[];
  summary: Json;
}

/** Maps `inputs` with the extra CLI `args` into a temporary folder and reads everything back. */
export async function mapToOpenehr(args: string[], inputs: string[]): Promise<MapRun> {
  const dir = mkdtempSync(join(tmpdir(), "crossmap-openehr-"));
  try {
    const out = join(dir, "out");
    const r = await runCli([
      "map",
      "--to",
      "openehr_1.0.4",
      "--out-dir",
      out,
      "--errors",
      join(dir, "issues.ndjson"),
      "--summary",
      join(dir, "summary.json"),
      "-q",
      ...args,
      ...inputs,
    ]);
    const objects: MappedObject[] = [];
    for (const file of existsSync(out) ? readdirSync(out).sort() : []) {
      readFileSync(join(out, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (line.trim() !== "") objects.push({ where: `${file}:${i + 1}`, value: JSON.parse(line) });
        });
    }
    const issuesText = existsSync(join(dir, "issues.ndjson"))
      ? readFileSync(join(dir, "issues.ndjson"), "utf8")
      : "";
    const issues = issuesText
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const summary = existsSync(join(dir, "summary.json"))
      ? JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"))
      : undefined;
    return { code: r.code, stderr: r.stderr, objects, issues, summary };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const compositions = (run: MapRun): Json[] =>
  run.objects.filter((o) => o.value._type === "COMPOSITION").map((o) => o.value);

/** The source id an entry or composition was made from (feeder_audit.originating_system_item_ids[0]). */
export const sourceId = (o: Json): string | undefined =>
  o?.feeder_audit?.originating_system_item_ids?.[0]?.id;

/** Issues counted by code. */
export function issueCounts(run: MapRun): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of run.issues) out[i.code] = (out[i.code] ?? 0) + 1;
  return out;
}

/** Entries counted by archetype id, over every composition. */
export function entriesByArchetype(run: MapRun): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of compositions(run))
    for (const e of c.content ?? []) out[e.archetype_node_id] = (out[e.archetype_node_id] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

const GOLDEN = new URL("../golden/openehr/", import.meta.url).pathname;

/**
 * The golden file of an archetype: the smallest composition holding an entry of it (by serialised size,
 * then position), with `content` cut to its first such entry. UPDATE_GOLDEN=1 rewrites the file.
 */
export function expectGoldenComposition(run: MapRun, folder: string, archetypeId: string): void {
  const holding = run.objects
    .filter(
      (o) =>
        o.value._type === "COMPOSITION" &&
        (o.value.content ?? []).some((e: Json) => e.archetype_node_id === archetypeId),
    )
    .map((o) => ({ o, size: JSON.stringify(o.value).length }))
    .sort((a, b) => a.size - b.size)[0];
  expect(holding, `no composition holds ${archetypeId}`).toBeDefined();
  const c = holding?.o.value as Json;
  const golden = { ...c, content: [(c.content as Json[]).find((e) => e.archetype_node_id === archetypeId)] };
  const text = `${JSON.stringify(golden, null, 2)}\n`;
  const file = join(GOLDEN, folder, `${archetypeId.replace(/^openEHR-EHR-/, "")}.json`);
  if (process.env.UPDATE_GOLDEN) {
    mkdirSync(join(GOLDEN, folder), { recursive: true });
    writeFileSync(file, text);
  }
  expect(text).toBe(readFileSync(file, "utf8"));
}
