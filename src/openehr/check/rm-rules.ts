// RM rules a JSON Schema cannot state: attributes bound to an openEHR terminology group hold a code of that
// group with its rubric (openEHR terminology, groups and rubrics as published in openehr_terminology.xml),
// language / territory / encoding codes have their ISO / IANA form, and no attribute is unknown to its class.
import { rmClass } from "../rm/model.js";
import { joinPath, type Violation } from "./types.js";

/** RM attribute -> the openEHR terminology group its DV_CODED_TEXT must come from: code -> rubric. */
const GROUPS: Record<string, { group: string; codes: Record<string, string> }> = {
  category: {
    group: "composition category",
    codes: { "431": "persistent", "451": "episodic", "433": "event" },
  },
  setting: {
    group: "setting",
    codes: {
      "225": "home",
      "227": "emergency care",
      "228": "primary medical care",
      "229": "primary nursing care",
      "230": "primary allied health care",
      "231": "midwifery care",
      "232": "secondary medical care",
      "233": "secondary nursing care",
      "234": "secondary allied health care",
      "235": "complementary health care",
      "236": "dental care",
      "237": "nursing home care",
      "802": "mental care",
      "238": "other care",
    },
  },
  current_state: {
    group: "instruction states",
    codes: {
      "524": "initial",
      "526": "planned",
      "527": "postponed",
      "528": "cancelled",
      "529": "scheduled",
      "245": "active",
      "530": "suspended",
      "531": "aborted",
      "532": "completed",
      "533": "expired",
    },
  },
  transition: {
    group: "instruction transitions",
    codes: {
      "535": "initiate",
      "536": "plan step",
      "537": "postpone",
      "538": "restore",
      "166": "cancel",
      "542": "postponed step",
      "539": "schedule",
      "534": "scheduled step",
      "540": "start",
      "541": "do",
      "543": "active step",
      "544": "suspend",
      "545": "suspended step",
      "546": "resume",
      "547": "abort",
      "548": "finish",
      "549": "time out",
      "550": "notify aborted",
      "551": "notify completed",
      "552": "notify cancelled",
    },
  },
  math_function: {
    group: "event math function",
    codes: {
      "145": "minimum",
      "144": "maximum",
      "267": "mode",
      "268": "median",
      "146": "mean",
      "147": "change",
      "148": "total",
      "149": "variation",
      "521": "decrease",
      "522": "increase",
      "640": "actual",
    },
  },
  null_flavour: {
    group: "null flavours",
    codes: { "271": "no information", "253": "unknown", "272": "masked", "273": "not applicable" },
  },
};

/** CODE_PHRASE attributes with a fixed code system and the form of their codes. */
const CODE_FORMS: Record<string, { terminology: string; pattern: RegExp; form: string }> = {
  language: {
    terminology: "ISO_639-1",
    pattern: /^[a-z]{2}(-[A-Za-z]{2,3})?$/,
    form: "an ISO 639-1 code such as en or de",
  },
  territory: {
    terminology: "ISO_3166-1",
    pattern: /^[A-Z]{2}$/,
    form: "an ISO 3166-1 alpha-2 code such as US or DE",
  },
  encoding: {
    terminology: "IANA_character-sets",
    pattern: /^[A-Za-z0-9._:-]+$/,
    form: "an IANA character set name such as UTF-8",
  },
};

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);
const tid = (cp: unknown): unknown =>
  isObj(cp) ? (cp.terminology_id as Json | undefined)?.value : undefined;

/** Every RM-rule violation in a canonical JSON object. */
export function rmRuleViolations(root: unknown): Violation[] {
  const out: Violation[] = [];
  const walk = (v: unknown, path: string, attr: string | undefined): void => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        walk(x, joinPath(path, i), attr);
      });
      return;
    }
    if (!isObj(v)) return;
    const type = typeof v._type === "string" ? v._type : undefined;
    const cls = type ? rmClass(type) : undefined;
    if (type && !cls)
      out.push({ severity: "error", code: "rm_type", path, message: `${type} is not an RM 1.0.4 class` });
    const group = attr ? GROUPS[attr] : undefined;
    if (group && (type === "DV_CODED_TEXT" || v.defining_code !== undefined)) {
      const code = v.defining_code as Json | undefined;
      const terminology = tid(code);
      const codeString = String(code?.code_string);
      if (terminology !== "openehr")
        out.push({
          severity: "error",
          code: "terminology",
          path: joinPath(path, "defining_code"),
          message: `${attr} must be coded in the openehr terminology (group "${group.group}"), not ${JSON.stringify(terminology)}`,
        });
      else if (!(codeString in group.codes))
        out.push({
          severity: "error",
          code: "code",
          path: joinPath(path, "defining_code.code_string"),
          message: `${codeString} is not a code of the openehr group "${group.group}"`,
        });
      else if (v.value !== group.codes[codeString])
        out.push({
          severity: "warning",
          code: "rubric",
          path: joinPath(path, "value"),
          message: `openehr ${codeString} is "${group.codes[codeString]}", not ${JSON.stringify(v.value)}`,
        });
    }
    const form = attr && type === "CODE_PHRASE" ? CODE_FORMS[attr] : undefined;
    if (form) {
      if (tid(v) !== form.terminology)
        out.push({
          severity: "error",
          code: "terminology",
          path: joinPath(path, "terminology_id"),
          message: `${attr} must be in ${form.terminology}, not ${JSON.stringify(tid(v))}`,
        });
      else if (!form.pattern.test(String(v.code_string)))
        out.push({
          severity: "error",
          code: "code",
          path: joinPath(path, "code_string"),
          message: `${JSON.stringify(v.code_string)} is not ${form.form}`,
        });
    }
    for (const [k, x] of Object.entries(v)) {
      if (k === "_type") continue;
      if (cls && !cls.attributes.has(k))
        out.push({
          severity: "error",
          code: "unknown_attribute",
          path: joinPath(path, k),
          message: `${cls.name} has no attribute ${k}`,
        });
      walk(x, joinPath(path, k), k);
    }
  };
  walk(root, "", undefined);
  return out;
}
