// What the RM 1.0.4 says about each class's attributes (mandatory? a list?), read from the ITS-JSON schemas,
// plus the class hierarchy the schemas flatten away (an EVENT may be a POINT_EVENT, a DV_TEXT a DV_CODED_TEXT).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { OPENEHR_DIR } from "./paths.js";

export interface RmAttribute {
  required: boolean;
  multiple: boolean;
}

export interface RmClass {
  name: string;
  attributes: Map<string, RmAttribute>;
}

/** Abstract RM classes and the concrete classes that conform to them (RM 1.0.4). */
const SUBTYPES: Record<string, string[]> = {
  LOCATABLE: [
    "COMPOSITION",
    "SECTION",
    "ENTRY",
    "ITEM_STRUCTURE",
    "ITEM",
    "HISTORY",
    "EVENT",
    "ACTIVITY",
    "EHR_STATUS",
    "PARTY",
  ],
  CONTENT_ITEM: ["SECTION", "ENTRY"],
  ENTRY: ["CARE_ENTRY", "ADMIN_ENTRY", "GENERIC_ENTRY"],
  CARE_ENTRY: ["OBSERVATION", "EVALUATION", "INSTRUCTION", "ACTION"],
  ITEM_STRUCTURE: ["ITEM_TREE", "ITEM_LIST", "ITEM_TABLE", "ITEM_SINGLE"],
  ITEM: ["CLUSTER", "ELEMENT"],
  EVENT: ["POINT_EVENT", "INTERVAL_EVENT"],
  PARTY_PROXY: ["PARTY_SELF", "PARTY_IDENTIFIED"],
  PARTY_IDENTIFIED: ["PARTY_RELATED"],
  PARTY: ["PERSON", "ORGANISATION", "GROUP", "AGENT", "ROLE"],
  DATA_VALUE: [
    "DV_BOOLEAN",
    "DV_STATE",
    "DV_IDENTIFIER",
    "DV_TEXT",
    "DV_PARAGRAPH",
    "DV_ORDERED",
    "DV_INTERVAL",
    "DV_ENCAPSULATED",
    "DV_URI",
    "DV_TIME_SPECIFICATION",
  ],
  DV_TEXT: ["DV_CODED_TEXT"],
  DV_ORDERED: ["DV_QUANTIFIED", "DV_ORDINAL", "DV_SCALE", "DV_TEMPORAL"],
  DV_QUANTIFIED: ["DV_AMOUNT", "DV_COUNT", "DV_PROPORTION", "DV_QUANTITY"],
  DV_AMOUNT: ["DV_QUANTITY", "DV_COUNT", "DV_PROPORTION", "DV_DURATION"],
  DV_ABSOLUTE_QUANTITY: ["DV_TEMPORAL"],
  DV_TEMPORAL: ["DV_DATE", "DV_TIME", "DV_DATE_TIME", "DV_DURATION"],
  DV_ENCAPSULATED: ["DV_MULTIMEDIA", "DV_PARSABLE"],
  DV_URI: ["DV_EHR_URI"],
  DV_TIME_SPECIFICATION: ["DV_PERIODIC_TIME_SPECIFICATION", "DV_GENERAL_TIME_SPECIFICATION"],
  OBJECT_ID: [
    "UID_BASED_ID",
    "ARCHETYPE_ID",
    "TEMPLATE_ID",
    "TERMINOLOGY_ID",
    "GENERIC_ID",
    "OBJECT_VERSION_ID",
    "HIER_OBJECT_ID",
  ],
  UID_BASED_ID: ["OBJECT_VERSION_ID", "HIER_OBJECT_ID"],
  OBJECT_REF: ["PARTY_REF", "LOCATABLE_REF", "ACCESS_GROUP_REF"],
};

/** `DV_INTERVAL<DV_DATE_TIME>` -> `DV_INTERVAL`. */
export const baseType = (t: string): string => {
  const i = t.indexOf("<");
  return i < 0 ? t : t.slice(0, i);
};

/** Whether data of RM type `actual` is allowed where a constraint names `constrained`. */
export function conformsTo(actual: string, constrained: string): boolean {
  const want = baseType(constrained);
  const have = baseType(actual);
  if (have === want) return true;
  const seen = new Set<string>();
  const stack = [want];
  while (stack.length > 0) {
    const t = stack.pop() as string;
    for (const sub of SUBTYPES[t] ?? []) {
      if (sub === have) return true;
      if (!seen.has(sub)) {
        seen.add(sub);
        stack.push(sub);
      }
    }
  }
  return false;
}

let cache: { classes: Map<string, RmClass>; schemas: object[] } | undefined;

/** Every ITS-JSON schema document (RM 1.0.4 and BASE 1.1.0), for a JSON Schema validator. */
export function itsJsonSchemas(): object[] {
  return load().schemas;
}

/** The RM class of a concrete or abstract type name, or undefined when the RM has no such class. */
export function rmClass(type: string): RmClass | undefined {
  const classes = load().classes;
  const t = baseType(type);
  const found = classes.get(t);
  if (found) return found;
  // An abstract class: what all its concrete subtypes share (EVENT -> POINT_EVENT and INTERVAL_EVENT).
  const concrete = [...classes.keys()].filter((c) => c !== t && conformsTo(c, t));
  if (concrete.length === 0) return undefined;
  const attrs = new Map<string, RmAttribute>();
  const first = classes.get(concrete[0] as string) as RmClass;
  for (const [name, a] of first.attributes) {
    const all = concrete.map((c) => classes.get(c)?.attributes.get(name));
    if (all.every((x) => x !== undefined))
      attrs.set(name, { required: all.every((x) => x?.required), multiple: a.multiple });
  }
  const made = { name: t, attributes: attrs };
  classes.set(t, made);
  return made;
}

function load(): { classes: Map<string, RmClass>; schemas: object[] } {
  if (cache) return cache;
  const classes = new Map<string, RmClass>();
  const schemas: object[] = [];
  const dir = join(OPENEHR_DIR, "its-json");
  for (const file of walk(dir)) {
    const doc = JSON.parse(readFileSync(file, "utf8")) as {
      definitions?: Record<string, { required?: string[]; properties?: Record<string, { type?: unknown }> }>;
    };
    schemas.push(doc);
    for (const [name, def] of Object.entries(doc.definitions ?? {})) {
      const required = new Set(def.required ?? []);
      const attributes = new Map<string, RmAttribute>();
      for (const [attr, schema] of Object.entries(def.properties ?? {})) {
        if (attr === "_type") continue;
        attributes.set(attr, { required: required.has(attr), multiple: schema.type === "array" });
      }
      classes.set(name, { name, attributes });
    }
  }
  cache = { classes, schemas };
  return cache;
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith(".json")) out.push(p);
  }
  return out;
}
