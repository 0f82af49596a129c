// SOURCE_TO_CONCEPT_MAP rows of a project's decisions: an item that cannot make a valid row is named by
// its code as well as its id.
import { describe, expect, it } from "vitest";
import { sourceToConceptMap } from "../../src/review/export-stcm.js";
import type { ConceptItem } from "../../src/store/types.js";

const item: ConceptItem = {
  id: "8756a418-13d3-4f8f-9326-be4dce546687",
  version: 1,
  created_at: "2026-12-07T19:51:31.096Z",
  updated_at: "2026-12-07T19:51:31.096Z",
  reviewed_at: "2026-12-07T19:51:31.096Z",
  source_column: "lab_code",
  source_code: "HB-1",
  source_description: "Hämoglobin, Blut",
  target_concept_id: 3004410,
  target_concept_name: "Hemoglobin A1c/Hemoglobin.total in Blood",
  target_vocabulary_id: null,
  confidence: 0.92,
  method: "override",
  source_vocabulary_id: null,
};

describe("sourceToConceptMap problems", () => {
  it("name the item's code, which a reviewer knows, beside its id", () => {
    const { rows, problems } = sourceToConceptMap([item]);
    expect(rows).toEqual([]);
    expect(problems).toEqual([
      {
        path: ["items", item.id, "source_vocabulary_id"],
        message: 'code "HB-1": no source_vocabulary_id: set it on the item, or give one for the export',
        code: "value_error.stcm",
      },
      {
        path: ["items", item.id, "target_vocabulary_id"],
        message: 'code "HB-1": no target_vocabulary_id, and no vocabulary to find it in',
        code: "value_error.stcm",
      },
    ]);
  });
});
