// The dependency direction docs/architecture.md documents, checked on every import in src/: a folder
// imports only folders of its own layer or below, there is no circle between folders, and the review page
// (src/ui) imports nothing from the other folders.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const src = join(dirname(fileURLToPath(import.meta.url)), "..", "src");

/** Layer of each top-level part of src/, lowest first (docs/architecture.md, "Folders"). */
const LAYER: Record<string, number> = {
  "errors.ts": 0,
  "hash.ts": 0,
  "process-exists.ts": 0,
  "version.ts": 0,
  openehr: 0,
  vocab: 1,
  transforms: 2,
  crossmap: 3,
  pipeline: 4,
  sinks: 4,
  review: 4,
  store: 4,
  server: 5,
  dq: 5,
  scale: 5,
  intake: 5,
  cli: 6,
  "index.ts": 7,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/** The part of src/ a file belongs to: its top folder, or its own name for a file directly in src/. */
const partOf = (file: string): string => relative(src, file).split(sep)[0] ?? "";

/** Relative specifiers of every static, re-export and dynamic import in a file. */
function relativeImports(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm)) {
    found.push(m[1] as string);
  }
  return found;
}

interface Edge {
  file: string;
  from: string;
  to: string;
}

function edges(): Edge[] {
  return sourceFiles(src).flatMap((file) =>
    relativeImports(readFileSync(file, "utf8")).map((spec) => ({
      file: relative(src, file),
      from: partOf(file),
      to: partOf(resolve(dirname(file), spec)),
    })),
  );
}

describe("dependency direction (docs/architecture.md)", () => {
  const all = edges().filter((e) => e.from !== e.to);

  it("knows the layer of every part of src/", () => {
    const parts = new Set(sourceFiles(src).map(partOf));
    parts.delete("ui");
    expect([...parts].filter((p) => LAYER[p] === undefined)).toEqual([]);
  });

  it("has no import of src/crossmap from src/transforms", () => {
    expect(all.filter((e) => e.from === "transforms" && e.to === "crossmap").map((e) => e.file)).toEqual([]);
  });

  it("has no import upward", () => {
    const upward = all
      .filter((e) => e.from !== "ui" && (LAYER[e.to] ?? -1) > (LAYER[e.from] ?? -1))
      .map((e) => `${e.file} -> ${e.to}`);
    expect(upward).toEqual([]);
  });

  it("has no circle between folders", () => {
    const next = new Map<string, Set<string>>();
    for (const e of all) next.set(e.from, (next.get(e.from) ?? new Set()).add(e.to));
    const circles: string[] = [];
    const reaches = (start: string, at: string, seen: Set<string>): boolean => {
      for (const n of next.get(at) ?? []) {
        if (n === start) return true;
        if (!seen.has(n)) {
          seen.add(n);
          if (reaches(start, n, seen)) return true;
        }
      }
      return false;
    };
    for (const part of next.keys()) if (reaches(part, part, new Set())) circles.push(part);
    expect(circles).toEqual([]);
  });

  it("keeps the review page apart: src/ui imports nothing from the other folders", () => {
    expect(all.filter((e) => e.from === "ui").map((e) => `${e.file} -> ${e.to}`)).toEqual([]);
  });
});
