// The openEHR checker on a small composition: valid as built, and each kind of violation found with its
// exact path, node and message when the composition is broken in one place.
import { beforeAll, describe, expect, it } from "vitest";
import type { Violation } from "../../src/openehr/check/types.js";
import { builtinTemplates, OpenehrValidator } from "../../src/openehr/check/validator.js";
import { type Any, composition, text } from "../support/openehr-sample.js";

let validator: OpenehrValidator;
beforeAll(() => {
  validator = new OpenehrValidator(builtinTemplates());
});

const check = (c: unknown): Violation[] => validator.check(c).violations;
const W =
  "[openEHR-EHR-COMPOSITION.encounter.v1]/content[openEHR-EHR-OBSERVATION.body_weight.v2]/data[at0002]/events[at0003]";
const ITEMS = "content[0].data.events[0].data.items";

describe("openEHR checker", () => {
  it("passes a composition that follows the RM and its template", () => {
    expect(check(composition())).toEqual([]);
  });

  it("finds each kind of violation at its path", () => {
    const cases: [string, (c: Any) => void, Violation[]][] = [
      [
        "a node id the template does not have, leaving a mandatory node out",
        (c) => {
          c.content[0].data.events[0].data.items[0].archetype_node_id = "at0005";
        },
        [
          {
            severity: "error",
            code: "unexpected_node",
            path: `${ITEMS}[0]`,
            node: `${W}/data[at0001]/items`,
            message:
              "ELEMENT[at0005] is not allowed here (the template allows ELEMENT[at0004], ELEMENT[at0024])",
          },
          {
            severity: "error",
            code: "occurrences",
            path: ITEMS,
            node: `${W}/data[at0001]/items[at0004]`,
            message: "ELEMENT[at0004] (Weight) is mandatory (1)",
          },
        ],
      ],
      [
        "units the template does not list",
        (c) => {
          c.content[0].data.events[0].data.items[0].value.units = "kilogram";
        },
        [
          {
            severity: "error",
            code: "units",
            path: `${ITEMS}[0].value.units`,
            node: `${W}/data[at0001]/items[at0004]/value`,
            message: 'units "kilogram" are not one of kg, [lb_av], g',
          },
        ],
      ],
      [
        "a magnitude outside the range of its units",
        (c) => {
          c.content[0].data.events[0].data.items[0].value.magnitude = 1200;
        },
        [
          {
            severity: "error",
            code: "range",
            path: `${ITEMS}[0].value.magnitude`,
            node: `${W}/data[at0001]/items[at0004]/value`,
            message: "1200 kg is outside 0..1000",
          },
        ],
      ],
      [
        "a local code not in the node's value set",
        (c) => {
          c.content[0].data.events[0].state.items[0].value.defining_code.code_string = "at9999";
        },
        [
          {
            severity: "error",
            code: "code",
            path: "content[0].data.events[0].state.items[0].value.defining_code.code_string",
            node: `${W}/state[at0008]/items[at0009]/value/defining_code`,
            message: 'code "at9999" is not one of at0013, at0017, at0011, at0028, at0010',
          },
        ],
      ],
      [
        "a data type the node does not allow",
        (c) => {
          c.content[0].data.events[0].data.items[0].value = text("72 kg");
        },
        [
          {
            severity: "error",
            code: "unexpected_node",
            path: `${ITEMS}[0].value`,
            node: `${W}/data[at0001]/items[at0004]/value`,
            message: "DV_TEXT is not allowed here (the template allows DV_QUANTITY)",
          },
        ],
      ],
      [
        "an archetype the template does not allow in content",
        (c) => {
          c.content[0].archetype_node_id = "openEHR-EHR-OBSERVATION.body_weight.v3";
          c.content[0].archetype_details.archetype_id.value = "openEHR-EHR-OBSERVATION.body_weight.v3";
        },
        [
          {
            severity: "error",
            code: "unexpected_node",
            path: "content[0]",
            node: "[openEHR-EHR-COMPOSITION.encounter.v1]/content",
            message: expect.stringMatching(
              /^OBSERVATION\[openEHR-EHR-OBSERVATION\.body_weight\.v3\] is not allowed here \(the template allows openEHR-EHR-OBSERVATION\.blood_pressure\.v2, /,
            ),
          },
        ],
      ],
      [
        "a name other than the template's (a warning)",
        (c) => {
          c.content[0].data.events[0].data.items[0].name = text("Gewicht");
        },
        [
          {
            severity: "warning",
            code: "name",
            path: `${ITEMS}[0].name`,
            node: `${W}/data[at0001]/items[at0004]`,
            message: 'name "Gewicht" differs from the template\'s "Weight"',
          },
        ],
      ],
      [
        "an RM attribute the class does not have",
        (c) => {
          c.content[0].data.events[0].data.items[0].value.unit = "kg";
        },
        [
          {
            severity: "error",
            code: "unknown_attribute",
            path: `${ITEMS}[0].value.unit`,
            message: "DV_QUANTITY has no attribute unit",
          },
        ],
      ],
      [
        "a mandatory RM attribute left out (ITS-JSON schema)",
        (c) => {
          delete c.content[0].encoding;
        },
        [
          {
            severity: "error",
            code: "rm_schema",
            path: "content[0]",
            message: "lacks the mandatory attribute encoding",
          },
        ],
      ],
      [
        "an openEHR terminology code outside its group, and a wrong rubric",
        (c) => {
          c.context.setting.defining_code.code_string = "999";
          c.category.value = "events";
        },
        [
          {
            severity: "warning",
            code: "rubric",
            path: "category.value",
            message: 'openehr 433 is "event", not "events"',
          },
          {
            severity: "error",
            code: "code",
            path: "context.setting.defining_code.code_string",
            message: '999 is not a code of the openehr group "setting"',
          },
        ],
      ],
      [
        "a language that is not an ISO 639-1 code",
        (c) => {
          c.language.code_string = "english";
        },
        [
          {
            severity: "error",
            code: "code",
            path: "language.code_string",
            message: '"english" is not an ISO 639-1 code such as en or de',
          },
        ],
      ],
      [
        "a template the validator does not know",
        (c) => {
          c.archetype_details.template_id.value = "other.v1";
        },
        [
          {
            severity: "error",
            code: "template_id",
            path: "archetype_details.template_id.value",
            message:
              "no template other.v1 was given (templates: crossmap.encounter.v1, crossmap.event_summary.v1)",
          },
        ],
      ],
    ];
    for (const [what, breakIt, expected] of cases) {
      const c = composition();
      breakIt(c);
      expect(check(c), what).toEqual(expected);
    }
  });

  it("requires a template id on a COMPOSITION and checks an EHR_STATUS against the RM only", () => {
    const c = composition();
    delete c.archetype_details.template_id;
    expect(check(c)).toEqual([
      {
        severity: "error",
        code: "template_id",
        path: "archetype_details.template_id",
        message: "a COMPOSITION must name its operational template (archetype_details.template_id)",
      },
    ]);
    const status = {
      _type: "EHR_STATUS",
      archetype_node_id: "openEHR-EHR-EHR_STATUS.generic.v1",
      name: text("EHR Status"),
      subject: {
        _type: "PARTY_SELF",
        external_ref: {
          _type: "PARTY_REF",
          id: { _type: "GENERIC_ID", value: "1", scheme: "person_id" },
          namespace: "omop_cdm_v5.4",
          type: "PERSON",
        },
      },
      is_queryable: true,
      is_modifiable: true,
    };
    expect(validator.check(status)).toEqual({ type: "EHR_STATUS", violations: [] });
    expect(check({ ...status, is_queryable: "yes" })).toEqual([
      { severity: "error", code: "rm_schema", path: "is_queryable", message: "must be boolean" },
    ]);
  });
});
