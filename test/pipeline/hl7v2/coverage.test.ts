// Coverage of the built-in HL7 v2 -> FHIR crossmap on the sample corpus, measured two ways and printed as a
// report: segments mapped vs skipped (unmapped_segment) per message, and distinct clinical resources per
// type against Microsoft FHIR-Converter's expected Bundles. Every skipped segment and every type where
// Microsoft makes more must be listed with its reason in docs/hl7v2.md (the tables between the markers).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { findBuiltinCrossmap } from "../../../src/crossmap/catalog.js";
import { loadCrossmapFile } from "../../../src/crossmap/load.js";
import { convertText } from "../../../src/pipeline/hl7v2/index.js";
import {
  coverageGaps,
  distinctByType,
  documentedGaps,
  microsoftBundles,
} from "../../support/hl7v2-coverage.js";
import { FIXTURES_DIR } from "../../support/omop.js";

const DIR = join(FIXTURES_DIR, "hl7v2", "samples");
const DOC = readFileSync(new URL("../../../docs/hl7v2.md", import.meta.url), "utf8");
const microsoft = microsoftBundles(join(FIXTURES_DIR, "hl7v2", "ms-fhir-converter-expected"));

interface Row {
  message: string;
  segments: number;
  skipped: { segment: number; type: string }[];
  ours: Map<string, number>;
}
const rows: Row[] = [];

beforeAll(async () => {
  const cm = await loadCrossmapFile(findBuiltinCrossmap("hl7v2_2.5.1", "fhir_r4")?.path ?? "");
  for (const f of readdirSync(DIR)
    .filter((n) => n.endsWith(".hl7"))
    .sort()) {
    for (const r of convertText(readFileSync(join(DIR, f), "utf8"), cm, { file: f })) {
      if (!r.ok) throw new Error(`${f} is malformed`);
      const skipped = r.issues
        .filter((i) => i.code === "unmapped_segment")
        .map((i) => {
          const m = /#\d+\/(\d+) ([A-Z0-9]{3})$/.exec(String(i.record));
          return { segment: Number(m?.[1]), type: String(m?.[2]) };
        });
      rows.push({ message: f, segments: r.message.segments.length, skipped, ours: distinctByType(r.bundle) });
    }
  }
  const total = (m: Map<string, number> | undefined) => [...(m ?? [])].reduce((a, [, n]) => a + n, 0);
  const lines = rows.map((r) => {
    const ms = microsoft.get(r.message);
    return [
      r.message.padEnd(30),
      String(r.segments).padStart(8),
      String(r.segments - r.skipped.length).padStart(7),
      String(r.skipped.length).padStart(8),
      String(total(r.ours)).padStart(10),
      (ms ? String(total(distinctByType(ms))) : "-").padStart(10),
    ].join(" ");
  });
  const all = rows.reduce((a, r) => a + r.segments, 0);
  const skipped = rows.reduce((a, r) => a + r.skipped.length, 0);
  console.log(
    [
      "message                        segments  mapped  skipped  crossmap  microsoft",
      ...lines,
      `${"all".padEnd(30)} ${String(all).padStart(8)} ${String(all - skipped).padStart(7)} ${String(skipped).padStart(8)}   (skipped ${((100 * skipped) / all).toFixed(1)}%; resources: distinct clinical ones)`,
    ].join("\n"),
  );
});

/** The rows of a markdown table between `<!-- name:start -->` and `<!-- name:end -->`. */
function table(name: string): string[][] {
  const text = DOC.slice(DOC.indexOf(`<!-- ${name}:start -->`), DOC.indexOf(`<!-- ${name}:end -->`));
  return text
    .split("\n")
    .filter((l) => /^\| [A-Za-z0-9-]+\.hl7 \|/.test(l))
    .map((l) =>
      l
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim()),
    );
}

describe("coverage of the sample corpus", () => {
  it("skips fewer than 5% of the non-Z segments, each listed with its reason in docs/hl7v2.md", () => {
    const nonZ = rows.reduce((a, r) => a + r.segments, 0);
    const skipped = rows.flatMap((r) => r.skipped.map((s) => [r.message, String(s.segment), s.type]));
    expect(skipped.length / nonZ).toBeLessThan(0.05);
    const documented = table("unmapped");
    expect(documented.map((d) => d.slice(0, 3))).toEqual(skipped);
    for (const d of documented) expect(d[3], d.join(" ")).toMatch(/\w{3}/);
  });

  it("makes every clinical resource type Microsoft makes, as many distinct ones, but for the documented rows", () => {
    const ours = new Map(rows.map((r) => [r.message, r.ours]));
    const theirs = new Map([...microsoft].map(([m, b]) => [m, distinctByType(b)]));
    const gaps = coverageGaps(ours, theirs);
    const documented = documentedGaps(DOC);
    expect(documented.map(({ why: _, ...row }) => row)).toEqual(gaps);
    for (const d of documented) expect(d.why, `${d.message} ${d.type}`).toMatch(/\w{3}/);
  });
});
