// The list view's query over items in id order: filters, search, and sorts that pick the first pages
// with a heap but must give exactly what a full sort gives.
import { describe, expect, it } from "vitest";
import { fold, itemStats, queryItems, SORT_KEYS } from "../../src/review/listing.js";
import type { ConceptItem } from "../../src/store/types.js";

const item = (i: number, confidence: number | null, frequency: number | null): ConceptItem => ({
  id: `c${String(i).padStart(5, "0")}`,
  version: 1,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 17)).toISOString(),
  reviewed_at: null,
  source_column: null,
  source_code: `S${i}`,
  source_description: null,
  target_concept_id: null,
  target_concept_name: null,
  target_vocabulary_id: null,
  confidence,
  method: i % 3 === 0 ? "auto" : "review",
  source_frequency: frequency,
});

// Few distinct values and some nulls, so that ties and missing values are everywhere.
const items = Array.from({ length: 3000 }, (_, i) =>
  item(i, i % 11 === 0 ? null : ((i * 7) % 10) / 10, i % 5 === 0 ? null : (i * 13) % 7),
);

function expected(sort: string, wanted: (i: ConceptItem) => boolean): string[] {
  const field = sort.replace(/^-/, "") as "confidence" | "source_frequency" | "updated_at" | "id";
  const sign = sort.startsWith("-") ? -1 : 1;
  const value = (i: ConceptItem) =>
    field === "id" ? null : field === "updated_at" ? Date.parse(i.updated_at) : i[field];
  return items
    .filter(wanted)
    .map((i, n) => ({ i, n, v: value(i) }))
    .sort((a, b) => {
      if (a.v === b.v) return a.n - b.n;
      if (a.v === null || a.v === undefined) return 1;
      if (b.v === null || b.v === undefined) return -1;
      return (a.v < b.v ? -1 : 1) * sign;
    })
    .map((x) => x.i.id);
}

describe("queryItems", () => {
  for (const sort of SORT_KEYS) {
    it(`sort=${sort}: every page, near and far, is the slice of a full stable sort`, () => {
      const wanted = (i: ConceptItem) => i.method === "review";
      const all = expected(sort, wanted);
      for (const [offset, limit] of [
        [0, 50],
        [37, 100],
        [1900, 100],
        [4900, 200],
        [0, 1000],
      ] as const) {
        const page = queryItems(items, "concept", { states: ["review"] }, sort, { offset, limit });
        expect(page.total).toBe(all.length);
        expect(page.items.map((i) => i.id)).toEqual(all.slice(offset, offset + limit));
      }
    });
  }

  it("searches folded text and combines filters", () => {
    const named = [
      { ...item(1, 0.9, 1), source_description: "Maladie de Ménière" },
      { ...item(2, 0.4, 1), target_concept_name: "MENIERE disease" },
      { ...item(3, 0.9, 1), source_description: "Ménière", method: "auto" as const },
    ];
    const ids = (f: Parameters<typeof queryItems>[2]) =>
      queryItems(named, "concept", f, "id", { offset: 0, limit: 10 }).items.map((i) => i.id);
    expect(ids({ q: "meniere" })).toEqual(["c00001", "c00002", "c00003"]);
    expect(ids({ q: "MÉNI", needs_review: true, min_confidence: 0.5 })).toEqual(["c00001"]);
    expect(fold("Ça Évolue")).toBe("ca evolue");
  });

  it("stats count states, reviewed items and the frequency covered", () => {
    const s = itemStats(
      [
        { ...item(1, null, 30), method: "override", reviewed_at: "t" },
        { ...item(2, null, 10), method: "unmapped", reviewed_at: "t" },
        item(4, null, null),
      ],
      "concept",
    );
    expect(s).toEqual({
      total: 3,
      by_state: { auto: 0, review: 1, manual: 0, override: 1, unmapped: 1 },
      reviewed: 2,
      reviewed_share: 2 / 3,
      source_frequency_total: 40,
      covered_frequency: 30,
      coverage_share: 0.75,
    });
  });

  it("stats do not count as reviewed a decision a new release reopened", () => {
    const reopened: ConceptItem = {
      ...item(5, null, null),
      method: "review",
      reviewed_at: "t",
      target_concept_id: 201827,
      revalidation: {
        reason: "invalid",
        previous_concept_id: 201826,
        previous_concept_name: "Type 2 diabetes mellitus",
        suggested_via: "Concept replaced by",
        release: "v5.0 28-FEB-25",
        at: "t",
      },
    };
    const s = itemStats(
      [{ ...item(1, null, null), method: "override", reviewed_at: "t" }, reopened],
      "concept",
    );
    expect(s).toMatchObject({ reviewed: 1, reviewed_share: 0.5 });
  });
});
