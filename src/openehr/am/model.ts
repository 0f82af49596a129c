// The openEHR Archetype Model 1.4 constraint tree, as an operational template (OPT 1.4) holds it: what the ADL
// parser builds, the OPT writer serialises, the OPT reader rebuilds and the composition checker walks.

/** An interval; an absent bound is unbounded. Bounds are numbers, or ISO 8601 strings for durations and dates. */
export interface Interval<T = number> {
  lower?: T;
  upper?: T;
  lowerIncluded: boolean;
  upperIncluded: boolean;
}

export interface Cardinality {
  interval: Interval;
  ordered: boolean;
  unique: boolean;
}

export interface CAttribute {
  rmAttributeName: string;
  existence: Interval;
  /** C_MULTIPLE_ATTRIBUTE (a container attribute such as `items`, `events`, `content`) when set. */
  cardinality?: Cardinality;
  children: CObject[];
}

interface CObjectBase {
  rmTypeName: string;
  occurrences: Interval;
  /** An at-code, or "" where the node has none (data values, EVENT_CONTEXT). */
  nodeId: string;
}

export interface CComplexObject extends CObjectBase {
  kind: "C_COMPLEX_OBJECT";
  attributes: CAttribute[];
}

export interface ArchetypeTerm {
  code: string;
  text: string;
  description: string;
  comment?: string;
}

/** An archetype node bound to an external term: at0004 -> LOINC 8480-6. */
export interface TermBinding {
  terminology: string;
  /** The at-code of the node. */
  code: string;
  /** The bound code in `terminology` (or a URI where the archetype binds one). */
  value: string;
}

/** The root of an archetype inside a template: its node id is at0000; its data carry the archetype id. */
export interface CArchetypeRoot extends CObjectBase {
  kind: "C_ARCHETYPE_ROOT";
  attributes: CAttribute[];
  archetypeId: string;
  templateId?: string;
  terms: ArchetypeTerm[];
  termBindings: TermBinding[];
}

/** An unfilled slot: any archetype whose id matches an include pattern and no exclude pattern. */
export interface ArchetypeSlot extends CObjectBase {
  kind: "ARCHETYPE_SLOT";
  includes: string[];
  excludes: string[];
}

/** `use_node`: the constraint at `targetPath` (inside the same archetype) applies here. */
export interface ArchetypeInternalRef extends CObjectBase {
  kind: "ARCHETYPE_INTERNAL_REF";
  targetPath: string;
}

/** `[ac0001]`: a code from an external value set the archetype only names. */
export interface ConstraintRef extends CObjectBase {
  kind: "CONSTRAINT_REF";
  reference: string;
}

export interface CCodePhrase extends CObjectBase {
  kind: "C_CODE_PHRASE";
  terminologyId?: string;
  codeList: string[];
  assumedValue?: string;
}

export interface QuantityItem {
  units: string;
  magnitude?: Interval;
  precision?: Interval;
}

export interface CDvQuantity extends CObjectBase {
  kind: "C_DV_QUANTITY";
  property?: { terminologyId: string; code: string };
  list: QuantityItem[];
}

export interface CDvOrdinal extends CObjectBase {
  kind: "C_DV_ORDINAL";
  list: { value: number; terminologyId: string; code: string }[];
}

export type CPrimitive =
  | { type: "C_STRING"; pattern?: string; list?: string[] }
  | { type: "C_INTEGER"; list?: number[]; range?: Interval }
  | { type: "C_REAL"; list?: number[]; range?: Interval }
  | { type: "C_BOOLEAN"; trueValid: boolean; falseValid: boolean }
  | { type: "C_DATE" | "C_TIME" | "C_DATE_TIME"; pattern?: string; range?: Interval<string> }
  | { type: "C_DURATION"; pattern?: string; range?: Interval<string> };

export interface CPrimitiveObject extends CObjectBase {
  kind: "C_PRIMITIVE_OBJECT";
  item: CPrimitive;
}

export type CObject =
  | CComplexObject
  | CArchetypeRoot
  | ArchetypeSlot
  | ArchetypeInternalRef
  | ConstraintRef
  | CCodePhrase
  | CDvQuantity
  | CDvOrdinal
  | CPrimitiveObject;

/** An operational template: one archetype root with every slot it fills nested inside as further roots. */
export interface OperationalTemplate {
  templateId: string;
  concept: string;
  language: string;
  uid?: string;
  description?: { purpose?: string; copyright?: string; licence?: string; author?: Record<string, string> };
  definition: CArchetypeRoot;
}

export const ONCE: Interval = { lower: 1, upper: 1, lowerIncluded: true, upperIncluded: true };
export const OPTIONAL: Interval = { lower: 0, upper: 1, lowerIncluded: true, upperIncluded: true };
export const ANY: Interval = { lower: 0, lowerIncluded: true, upperIncluded: false };

export const interval = (lower: number, upper?: number): Interval =>
  upper === undefined
    ? { lower, lowerIncluded: true, upperIncluded: false }
    : { lower, upper, lowerIncluded: true, upperIncluded: true };

/** `0..1`, `1..*`, `0..1000.0` (a bound left out prints as `*`). */
export function formatInterval(i: Interval<number | string>): string {
  const lo = i.lower === undefined ? "*" : `${i.lowerIncluded ? "" : ">"}${i.lower}`;
  const hi = i.upper === undefined ? "*" : `${i.upperIncluded ? "" : "<"}${i.upper}`;
  return lo === hi ? lo : `${lo}..${hi}`;
}

/** Whether n lies in the interval. */
export function inInterval(i: Interval, n: number): boolean {
  if (i.lower !== undefined && (i.lowerIncluded ? n < i.lower : n <= i.lower)) return false;
  if (i.upper !== undefined && (i.upperIncluded ? n > i.upper : n >= i.upper)) return false;
  return true;
}
