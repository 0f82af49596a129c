// Test support: checks canonical JSON of the openEHR Reference Model 1.0.4 for what the RM itself demands:
// every object names a known RM `_type`, carries the attributes that type requires, and holds no null or
// empty value; LOCATABLEs have an archetype_node_id and a DV_TEXT name; dates are ISO 8601.
// (Archetype constraints need the OPTs, which are not shipped; this is the RM layer.)

const LOCATABLE = ["archetype_node_id", "name"];
const ENTRY = [...LOCATABLE, "language", "encoding", "subject"];

/** RM type -> attributes it must carry (RM 1.0.4 mandatory attributes and the invariants that force them). */
const REQUIRED: Record<string, string[]> = {
  PERSON: [...LOCATABLE, "identities"],
  PARTY_IDENTITY: [...LOCATABLE, "details"],
  COMPOSITION: [...LOCATABLE, "language", "territory", "category", "composer", "archetype_details"],
  EVENT_CONTEXT: ["start_time", "setting"],
  EVALUATION: [...ENTRY, "data"],
  OBSERVATION: [...ENTRY, "data"],
  INSTRUCTION: [...ENTRY, "narrative", "activities"],
  ACTIVITY: [...LOCATABLE, "description", "action_archetype_id"],
  ACTION: [...ENTRY, "time", "description", "ism_transition"],
  ISM_TRANSITION: ["current_state"],
  HISTORY: [...LOCATABLE, "origin"],
  POINT_EVENT: [...LOCATABLE, "time", "data"],
  ITEM_TREE: LOCATABLE,
  CLUSTER: [...LOCATABLE, "items"],
  ELEMENT: LOCATABLE,
  DV_TEXT: ["value"],
  DV_CODED_TEXT: ["value", "defining_code"],
  CODE_PHRASE: ["terminology_id", "code_string"],
  TERMINOLOGY_ID: ["value"],
  DV_QUANTITY: ["magnitude", "units"],
  DV_DATE_TIME: ["value"],
  DV_DATE: ["value"],
  DV_IDENTIFIER: ["id"],
  PARTY_SELF: [],
  PARTY_IDENTIFIED: [],
  PARTY_REF: ["id", "namespace", "type"],
  GENERIC_ID: ["value", "scheme"],
  ARCHETYPED: ["archetype_id", "rm_version"],
  ARCHETYPE_ID: ["value"],
  FEEDER_AUDIT: ["originating_system_audit"],
  FEEDER_AUDIT_DETAILS: ["system_id"],
};

/** Attributes whose value must be of one of these RM types. */
const TYPED: Record<string, string[]> = {
  name: ["DV_TEXT", "DV_CODED_TEXT"],
  category: ["DV_CODED_TEXT"],
  setting: ["DV_CODED_TEXT"],
  current_state: ["DV_CODED_TEXT"],
  defining_code: ["CODE_PHRASE"],
  language: ["CODE_PHRASE"],
  encoding: ["CODE_PHRASE"],
  territory: ["CODE_PHRASE"],
  time: ["DV_DATE_TIME"],
  origin: ["DV_DATE_TIME"],
  start_time: ["DV_DATE_TIME"],
  end_time: ["DV_DATE_TIME"],
  narrative: ["DV_TEXT", "DV_CODED_TEXT"],
  subject: ["PARTY_SELF", "PARTY_IDENTIFIED"],
  composer: ["PARTY_SELF", "PARTY_IDENTIFIED"],
};

/** A LOCATABLE archetype root (archetype_node_id is an archetype id) must say which archetype in archetype_details. */
const ARCHETYPE_ID = /^openEHR-[A-Z]+-[A-Z_]+\.[a-z0-9_-]+\.v\d+$/;
const AT_CODE = /^at\d{4}(\.\d+)*$/;
const ISO_DATE_TIME = /^\d{4}(-\d{2}(-\d{2}(T\d{2}(:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/;
const ISO_DATE = /^\d{4}(-\d{2}(-\d{2})?)?$/;

/** Every RM problem in one canonical JSON object, as readable lines; empty when it passes. */
export function openehrProblems(root: unknown, rootType?: string): string[] {
  const problems: string[] = [];
  const visit = (v: unknown, path: string, attr: string | undefined, parent?: string): void => {
    if (v === null || v === undefined || v === "") {
      problems.push(`${path}: empty value`);
      return;
    }
    if (Array.isArray(v)) {
      if (v.length === 0) problems.push(`${path}: empty list`);
      v.forEach((x, i) => {
        visit(x, `${path}[${i}]`, attr, parent);
      });
      return;
    }
    // PARTY_IDENTIFIED.name is a plain String; everywhere else these attributes hold RM objects.
    const typed = attr && parent !== "PARTY_IDENTIFIED" ? TYPED[attr] : undefined;
    if (typeof v !== "object") {
      if (typed) problems.push(`${path}: ${attr} must be ${typed.join(" or ")}, not ${JSON.stringify(v)}`);
      return;
    }
    const o = v as Record<string, unknown>;
    const type = o._type;
    if (typeof type !== "string" || !(type in REQUIRED)) {
      problems.push(`${path}: unknown or missing _type ${JSON.stringify(type)}`);
      return;
    }
    if (typed && !typed.includes(type))
      problems.push(`${path}: ${attr} must be ${typed.join(" or ")}, not ${type}`);
    for (const a of REQUIRED[type] ?? []) if (!(a in o)) problems.push(`${path}: ${type} lacks ${a}`);
    if (type === "ELEMENT" && !("value" in o) && !("null_flavour" in o)) {
      problems.push(`${path}: ELEMENT has neither value nor null_flavour`);
    }
    if (typeof o.archetype_node_id === "string") {
      const id = o.archetype_node_id;
      if (ARCHETYPE_ID.test(id)) {
        const details = o.archetype_details as { archetype_id?: { value?: unknown } } | undefined;
        if (details?.archetype_id?.value !== id)
          problems.push(`${path}: archetype root ${id} without matching archetype_details`);
      } else if (!AT_CODE.test(id))
        problems.push(`${path}: archetype_node_id ${id} is neither an archetype id nor an at-code`);
    }
    if (type === "DV_DATE_TIME" && !ISO_DATE_TIME.test(String(o.value)))
      problems.push(`${path}: DV_DATE_TIME ${String(o.value)} is not ISO 8601`);
    if (type === "DV_DATE" && !ISO_DATE.test(String(o.value)))
      problems.push(`${path}: DV_DATE ${String(o.value)} is not ISO 8601`);
    if (type === "DV_QUANTITY" && typeof o.magnitude !== "number")
      problems.push(`${path}: DV_QUANTITY magnitude is not a number`);
    for (const [k, x] of Object.entries(o)) if (k !== "_type") visit(x, `${path}.${k}`, k, type);
  };
  visit(root, "$", undefined);
  if (rootType && (root as { _type?: unknown })?._type !== rootType)
    problems.push(`$: expected _type ${rootType}`);
  return problems;
}
