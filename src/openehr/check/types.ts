// What the openEHR checks report: one violation per problem, located by the JSON path inside the checked
// object and, where a template node is involved, by its archetype path.

export type Severity = "error" | "warning";

export interface Violation {
  severity: Severity;
  /** Machine-readable kind: rm_schema, unknown_attribute, node_id, rm_type, occurrences, cardinality, ... */
  code: string;
  /** Where in the object: `content[2].data.events[0].data.items[1].value.units` ("" is the object itself). */
  path: string;
  /** The template node it concerns: `[openEHR-EHR-OBSERVATION.body_weight.v2]/data[at0002]/events[at0003]`. */
  node?: string;
  message: string;
}

export const joinPath = (base: string, key: string | number): string =>
  typeof key === "number" ? `${base}[${key}]` : base === "" ? key : `${base}.${key}`;
