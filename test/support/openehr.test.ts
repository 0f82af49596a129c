// The RM checker must catch what the openEHR tests rely on it for.
import { describe, expect, it } from "vitest";
import { openehrProblems } from "./openehr.js";

const text = (value: string) => ({ _type: "DV_TEXT", value });

describe("openEHR RM checker", () => {
  it("accepts a minimal valid ELEMENT tree", () => {
    const tree = {
      _type: "ITEM_TREE",
      archetype_node_id: "at0001",
      name: text("Tree"),
      items: [{ _type: "ELEMENT", archetype_node_id: "at0002", name: text("Name"), value: text("x") }],
    };
    expect(openehrProblems(tree)).toEqual([]);
  });
  it("names unknown types, missing attributes, empty values, valueless ELEMENTs and bad dates", () => {
    expect(openehrProblems({ _type: "DV_FOO" })).toEqual(['$: unknown or missing _type "DV_FOO"']);
    expect(openehrProblems({ _type: "ELEMENT", archetype_node_id: "at0002", name: text("") })).toEqual([
      "$: ELEMENT has neither value nor null_flavour",
      "$.name.value: empty value",
    ]);
    expect(
      openehrProblems({ _type: "HISTORY", name: "x", origin: { _type: "DV_DATE_TIME", value: "May 1" } }),
    ).toEqual([
      "$: HISTORY lacks archetype_node_id",
      '$.name: name must be DV_TEXT or DV_CODED_TEXT, not "x"',
      "$.origin: DV_DATE_TIME May 1 is not ISO 8601",
    ]);
  });
  it("requires archetype_details on an archetype root", () => {
    expect(
      openehrProblems({
        _type: "ITEM_TREE",
        archetype_node_id: "openEHR-EHR-ITEM_TREE.x.v1",
        name: text("x"),
      }),
    ).toEqual(["$: archetype root openEHR-EHR-ITEM_TREE.x.v1 without matching archetype_details"]);
  });
});
