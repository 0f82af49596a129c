// The ADL 1.4 parser against a CKM archetype and against the syntax errors a hand-edited file has.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseArchetype } from "../../src/openehr/adl/archetype.js";
import { parseDefinition } from "../../src/openehr/adl/cadl.js";
import { outline } from "../../src/openehr/am/outline.js";
import { OPENEHR_DIR } from "../../src/openehr/rm/paths.js";

const adl = (id: string): string => readFileSync(join(OPENEHR_DIR, "archetypes", `${id}.adl`), "utf8");

describe("ADL 1.4 archetypes", () => {
  it("reads body_weight.v2: definition, terms, bindings and licence as the CKM publishes them", () => {
    const a = parseArchetype(adl("openEHR-EHR-OBSERVATION.body_weight.v2"));
    expect(a.archetypeId).toBe("openEHR-EHR-OBSERVATION.body_weight.v2");
    expect(a.originalLanguage).toBe("en");
    const en = a.terms.get("en");
    expect(en?.get("at0004")).toEqual({
      code: "at0004",
      text: "Weight",
      description: "The weight of the individual.",
    });
    expect(a.termBindings).toEqual([{ terminology: "LOINC", code: "at0004", value: "29463-7" }]);
    expect(a.licence).toBe(
      "This work is licensed under the Creative Commons Attribution-ShareAlike 4.0 International License. To view a copy of this license, visit http://creativecommons.org/licenses/by-sa/4.0/.",
    );
    expect(outline(a.definition, (c) => en?.get(c)?.text).slice(0, 22)).toEqual([
      "OBSERVATION[at0000] 1 -- Body weight",
      "  .data exist 1",
      "    HISTORY[at0002] 1 -- history",
      "      .events exist 0..1 card 1..*",
      "        EVENT[at0003] 0..* -- Any event",
      "          .data exist 1",
      "            ITEM_TREE[at0001] 1 -- Simple",
      "              .items exist 0..1 card 1..*",
      "                ELEMENT[at0004] 1 -- Weight",
      "                  .value exist 0..1",
      "                    DV_QUANTITY 1 kg|[lb_av]|g",
      "                ELEMENT[at0024] 0..1 -- Comment",
      "                  .value exist 0..1",
      "                    DV_TEXT 1",
      "          .state exist 0..1",
      "            ITEM_TREE[at0008] 1 -- state structure",
      "              .items exist 0..1 card 0..*",
      "                ELEMENT[at0009] 0..1 -- State of dress",
      "                  .value exist 0..1",
      "                    DV_CODED_TEXT 1",
      "                      .defining_code exist 1",
      "                        CODE_PHRASE 1 [local::at0013,at0017,at0011,at0028,at0010]",
    ]);
  });

  it("keeps quantity ranges, interval events, use_node paths and primitive constraints", () => {
    const def = parseArchetype(adl("openEHR-EHR-OBSERVATION.blood_pressure.v2")).definition;
    const text = outline(def).join("\n");
    expect(text).toContain("INTERVAL_EVENT[at1042] 0..1");
    expect(text).toContain(
      'DURATION 1 {"type":"C_DURATION","range":{"lower":"PT24H","upper":"PT24H","lowerIncluded":true,"upperIncluded":true}}',
    );
    expect(text).toContain("ITEM_TREE 1 -> /data[at0001]/events[at0006]/data[at0003]");
    const weight = parseArchetype(adl("openEHR-EHR-OBSERVATION.body_weight.v2")).definition;
    const q = JSON.stringify(weight);
    expect(q).toContain(
      '{"units":"kg","magnitude":{"lowerIncluded":true,"upperIncluded":true,"lower":0,"upper":1000}}',
    );
  });

  it("parses all the archetypes the templates use", () => {
    const ids = [
      "openEHR-EHR-COMPOSITION.encounter.v1",
      "openEHR-EHR-ACTION.medication.v1",
      "openEHR-EHR-INSTRUCTION.medication_order.v3",
      "openEHR-EHR-EVALUATION.adverse_reaction_risk.v2",
      "openEHR-EHR-OBSERVATION.pulse_oximetry.v1",
      "openEHR-EHR-CLUSTER.adverse_reaction_event.v1",
    ];
    for (const id of ids) expect(parseArchetype(adl(id)).archetypeId).toBe(id);
  });

  it("reports a syntax error with the file and line", () => {
    const text = [
      "OBSERVATION[at0000] matches {",
      "  data matches {",
      "    HISTORY[at0001] occurrences matches {x} matches {*}",
      "  }",
      "}",
    ].join("\n");
    expect(() => parseDefinition(text, 40)).toThrow(
      'line 42: expected an interval like 0..1 or 1..*, found "x"',
    );
    const file = [
      "archetype (adl_version=1.4)",
      "\topenEHR-EHR-OBSERVATION.x.v1",
      "definition",
      "\tOBSERVATION[at0000] matches {",
      "\t\tdata matches {",
      "\t\t\tHISTORY[at0001] matches {",
      "\t}",
    ].join("\n");
    expect(() => parseArchetype(file, "x.adl")).toThrow(/^x\.adl:line \d+: /);
  });
});
