// Coverage of the built-in HL7 v2 -> FHIR crossmap against Microsoft FHIR-Converter's expected Bundles:
// per message and resource type, how many distinct resources each produces. "Distinct" ignores ids,
// references and meta, so the duplicates Microsoft makes (one Organization per field that names the same
// organization) count once. Bookkeeping types (MessageHeader, Provenance) are not clinical content.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const NOT_CLINICAL = new Set(["MessageHeader", "Provenance"]);

type Json = unknown;

function strip(v: Json): Json {
  if (Array.isArray(v)) return v.map(strip);
  if (v !== null && typeof v === "object") {
    const out: Record<string, Json> = {};
    for (const k of Object.keys(v).sort()) {
      if (k === "id" || k === "reference" || k === "meta" || k === "fullUrl") continue;
      out[k] = strip((v as Record<string, Json>)[k]);
    }
    return out;
  }
  return v;
}

/** Resource type -> number of distinct resources of a Bundle's entries. */
export function distinctByType(bundle: {
  entry?: { resource: Record<string, unknown> }[];
}): Map<string, number> {
  const sets = new Map<string, Set<string>>();
  for (const e of bundle.entry ?? []) {
    const t = String(e.resource.resourceType);
    if (NOT_CLINICAL.has(t)) continue;
    let s = sets.get(t);
    if (!s) {
      s = new Set();
      sets.set(t, s);
    }
    s.add(JSON.stringify(strip(e.resource)));
  }
  return new Map([...sets].map(([t, s]) => [t, s.size]));
}

/** Microsoft's expected Bundle of each sample that has one: sample file name -> Bundle. */
export function microsoftBundles(
  dir: string,
): Map<string, { entry?: { resource: Record<string, unknown> }[] }> {
  const out = new Map();
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith("-expected.json"))
    .sort()) {
    out.set(`${f.replace(/-expected\.json$/, "")}.hl7`, JSON.parse(readFileSync(join(dir, f), "utf8")));
  }
  return out;
}

export interface CoverageRow {
  message: string;
  type: string;
  microsoft: number;
  crossmap: number;
}

/** Every (message, type) where Microsoft makes more distinct clinical resources than the crossmap. */
export function coverageGaps(
  ours: Map<string, Map<string, number>>,
  theirs: Map<string, Map<string, number>>,
): CoverageRow[] {
  const rows: CoverageRow[] = [];
  for (const [message, ms] of theirs) {
    const mine = ours.get(message) ?? new Map<string, number>();
    for (const [type, n] of [...ms].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const m = mine.get(type) ?? 0;
      if (m < n) rows.push({ message, type, microsoft: n, crossmap: m });
    }
  }
  return rows;
}

/** The table between the coverage markers of docs/hl7v2.md: message, type, Microsoft, crossmap, why. */
export function documentedGaps(markdown: string): (CoverageRow & { why: string })[] {
  const start = markdown.indexOf("<!-- coverage:start -->");
  const end = markdown.indexOf("<!-- coverage:end -->");
  if (start < 0 || end < 0) return [];
  return markdown
    .slice(start, end)
    .split("\n")
    .filter((l) => /^\| [A-Za-z0-9-]+\.hl7 \|/.test(l))
    .map((l) => {
      const [message, type, microsoft, crossmap, why] = l
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim());
      return {
        message: message as string,
        type: type as string,
        microsoft: Number(microsoft),
        crossmap: Number(crossmap),
        why: why ?? "",
      };
    });
}
