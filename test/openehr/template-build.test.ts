// The operational templates shipped in crossmaps/openehr/templates: made from the shipped CKM archetypes by
// the template build, readable by the OPT reader into the same constraint tree.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseArchetype } from "../../src/openehr/adl/archetype.js";
import { outline } from "../../src/openehr/am/outline.js";
import { readOpt } from "../../src/openehr/opt/read.js";
import { writeOpt } from "../../src/openehr/opt/write.js";
import { OPENEHR_DIR } from "../../src/openehr/rm/paths.js";
import { buildTemplate } from "../../src/openehr/template/build.js";
import { archetypeDir, buildTemplateFiles } from "../../src/openehr/template/files.js";

const templatesDir = join(OPENEHR_DIR, "templates");
const source = archetypeDir(join(OPENEHR_DIR, "archetypes"));

describe("template build", () => {
  const built = buildTemplateFiles(OPENEHR_DIR);

  it("the shipped OPTs are exactly what the build makes from the shipped archetypes", () => {
    expect(built.map((b) => b.file)).toEqual(["crossmap.encounter.v1.opt", "crossmap.event_summary.v1.opt"]);
    for (const b of built) expect(readFileSync(join(templatesDir, b.file), "utf8")).toBe(b.xml);
  });

  it("reads back the tree it wrote (OPT round trip)", () => {
    const spec = {
      template_id: "t.v1",
      root: "openEHR-EHR-OBSERVATION.laboratory_test_result.v1",
      slots: {
        "openEHR-EHR-OBSERVATION.laboratory_test_result.v1": {
          at0097: ["openEHR-EHR-CLUSTER.laboratory_test_analyte.v1"],
        },
      },
    };
    const t = buildTemplate(spec, source);
    const back = readOpt(writeOpt(t));
    expect(back.definition).toEqual(t.definition);
    expect(back.templateId).toBe("t.v1");
    expect(back.concept).toBe("Laboratory test result");
  });

  it("fills a slot with the archetype root in place of the slot, and expands use_node", () => {
    const t = readOpt(readFileSync(join(templatesDir, "crossmap.encounter.v1.opt"), "utf8"));
    const text = outline(t.definition).join("\n");
    expect(text).toContain(
      "CLUSTER[openEHR-EHR-CLUSTER.laboratory_test_analyte.v1] 0..* -- Laboratory analyte result",
    );
    expect(text).not.toContain("include openEHR-EHR-CLUSTER\\.laboratory_test_analyte");
    expect(text).not.toContain(" -> /");
    const content = t.definition.attributes.find((a) => a.rmAttributeName === "content");
    expect(content?.children.map((c) => (c.kind === "C_ARCHETYPE_ROOT" ? c.archetypeId : c.kind))).toEqual([
      "openEHR-EHR-OBSERVATION.blood_pressure.v2",
      "openEHR-EHR-OBSERVATION.body_weight.v2",
      "openEHR-EHR-OBSERVATION.height.v2",
      "openEHR-EHR-OBSERVATION.body_mass_index.v2",
      "openEHR-EHR-OBSERVATION.pulse.v2",
      "openEHR-EHR-OBSERVATION.respiration.v2",
      "openEHR-EHR-OBSERVATION.body_temperature.v2",
      "openEHR-EHR-OBSERVATION.pulse_oximetry.v1",
      "openEHR-EHR-OBSERVATION.laboratory_test_result.v1",
      "openEHR-EHR-OBSERVATION.story.v1",
      "openEHR-EHR-EVALUATION.problem_diagnosis.v1",
      "openEHR-EHR-EVALUATION.tobacco_smoking_summary.v2",
      "openEHR-EHR-EVALUATION.adverse_reaction_risk.v2",
      "openEHR-EHR-INSTRUCTION.medication_order.v3",
      "openEHR-EHR-ACTION.medication.v1",
      "openEHR-EHR-ACTION.procedure.v1",
    ]);
    expect(t.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("refuses a filler the slot does not allow, and a slot the template does not have", () => {
    const root = "openEHR-EHR-OBSERVATION.laboratory_test_result.v1";
    expect(() =>
      buildTemplate(
        {
          template_id: "t.v1",
          root,
          slots: {
            [root]: {
              at0097: [
                "openEHR-EHR-CLUSTER.laboratory_test_analyte.v1",
                "openEHR-EHR-OBSERVATION.body_weight.v2",
              ],
            },
          },
        },
        source,
      ),
    ).toThrow(
      "template t.v1: openEHR-EHR-OBSERVATION.body_weight.v2 (OBSERVATION) cannot fill CLUSTER slot at0097",
    );
    expect(() =>
      buildTemplate({ template_id: "t.v1", root, slots: { [root]: { at9999: [] } } }, source),
    ).toThrow(
      "template t.v1: slots: openEHR-EHR-OBSERVATION.laboratory_test_result.v1 at9999 is not used by the template",
    );
    expect(() =>
      buildTemplate({ template_id: "t.v1", root: "openEHR-EHR-OBSERVATION.nope.v1" }, source),
    ).toThrow("archetype openEHR-EHR-OBSERVATION.nope.v1 is not in");
    void parseArchetype;
  });
});
