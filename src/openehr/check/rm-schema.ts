// Validates canonical JSON against the openEHR ITS-JSON schemas of RM 1.0.4 (JSON Schema draft-07), with
// ajv; the schemas are compiled once per process. Their $ids are absolute, so all are loaded together.
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { itsJsonSchemas } from "../rm/model.js";
import type { Violation } from "./types.js";

const BASE = "https://specifications.openehr.org/releases/ITS-JSON/latest/components/RM/Release-1.0.4/";

/** RM class -> its schema file inside RM/Release-1.0.4/, for the classes a checked document may be. */
const ROOTS: Record<string, string> = {
  COMPOSITION: "Composition/COMPOSITION.json",
  EHR_STATUS: "Ehr/EHR_STATUS.json",
  OBSERVATION: "Composition/OBSERVATION.json",
  EVALUATION: "Composition/EVALUATION.json",
  INSTRUCTION: "Composition/INSTRUCTION.json",
  ACTION: "Composition/ACTION.json",
  SECTION: "Composition/SECTION.json",
  ADMIN_ENTRY: "Composition/ADMIN_ENTRY.json",
  PERSON: "Demographic/PERSON.json",
};

let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

function validatorFor(type: string): ValidateFunction | undefined {
  const file = ROOTS[type];
  if (!file) return undefined;
  let v = compiled.get(type);
  if (!v) {
    if (!ajv) {
      // strict: false because the published schemas use keywords ajv's strict mode rejects (e.g. unknown formats).
      ajv = new Ajv({
        strict: false,
        allErrors: true,
        validateFormats: false,
        inlineRefs: false,
        code: { optimize: false },
      });
      for (const s of itsJsonSchemas()) ajv.addSchema(s);
    }
    const fn = ajv.getSchema(`${BASE}${file}#/definitions/${type}`);
    if (!fn) throw new Error(`ITS-JSON schema for ${type} not found`);
    v = fn;
    compiled.set(type, v);
  }
  return v;
}

/** The RM classes a top-level object may have for `rmSchemaViolations`. */
export const SCHEMA_ROOTS = Object.keys(ROOTS);

const pointerToPath = (p: string): string =>
  p
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc === "" ? s : `${acc}.${s}`), "");

/**
 * Every place where `obj` breaks the ITS-JSON schema of its `_type`. The schemas branch with if/then on
 * `_type`, so one bad leaf also fails the branches around it; only the deepest messages are kept.
 */
export function rmSchemaViolations(obj: unknown): Violation[] {
  const type = (obj as { _type?: unknown })?._type;
  if (typeof type !== "string")
    return [{ severity: "error", code: "rm_schema", path: "", message: "the object has no _type" }];
  const validate = validatorFor(type);
  if (!validate)
    return [
      {
        severity: "error",
        code: "rm_schema",
        path: "",
        message: `_type ${type} is not a top-level RM class (${SCHEMA_ROOTS.join(", ")})`,
      },
    ];
  if (validate(obj)) return [];
  // Unknown attributes are left to the RM rules, which name the attribute and check every class alike.
  const errors = (validate.errors ?? []).filter(
    (e) => e.keyword !== "if" && e.keyword !== "allOf" && e.keyword !== "additionalProperties",
  );
  const deepest = errors.filter(
    (e) => !errors.some((o) => o !== e && o.instancePath.startsWith(`${e.instancePath}/`)),
  );
  const seen = new Set<string>();
  const out: Violation[] = [];
  for (const e of deepest) {
    const message = describe(e);
    const key = `${e.instancePath}\0${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ severity: "error", code: "rm_schema", path: pointerToPath(e.instancePath), message });
  }
  return out;
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return `lacks the mandatory attribute ${String(p.missingProperty)}`;
    case "enum":
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "type":
      return `must be ${String(p.type)}`;
    case "const":
      return `must be ${JSON.stringify(p.allowedValue)}`;
    default:
      return e.message ?? e.keyword;
  }
}
