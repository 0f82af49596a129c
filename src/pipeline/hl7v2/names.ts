// Field names of HL7 v2 segments from the standard definition (crossmaps/standards/hl7v2_2.5.1.yaml),
// so records can be addressed as `PID.patient_name` as well as `PID.5`. Read once per process.
import { join } from "node:path";
import { readBuiltinYaml } from "../../crossmap/builtin-data.js";
import { BUILTIN_DIR } from "../../crossmap/catalog.js";

/** Per field position (index 0 is field 1): its alias, and whether its data type has components. */
export interface SegmentFields {
  names: (string | undefined)[];
  composite: boolean[];
}

export type FieldNames = ReadonlyMap<string, SegmentFields>;

interface DefinitionFile {
  entities?: Record<string, { fields?: { name?: unknown; alias?: unknown; type?: unknown }[] }>;
}

// Types read as one value: a single-valued field of these is a plain string (PID.8 -> "M"). TS is
// composite in v2.5.1 (time ^ degree of precision) but the second component is deprecated, and PID.7 is
// read as a time by everyone; `varies` (OBX.5) depends on OBX.2 and hl7v2_field reads both forms.
const PRIMITIVE = new Set([
  "ST",
  "ID",
  "IS",
  "NM",
  "SI",
  "DT",
  "DTM",
  "TM",
  "TS",
  "TX",
  "FT",
  "GTS",
  "varies",
]);

let cached: FieldNames | undefined;

/** Segment type -> aliases and composite flags by position, from each field's `name` (its position), `alias` and `type`. */
export function fieldNames(file?: string): FieldNames {
  if (cached && file === undefined) return cached;
  const path = file ?? join(BUILTIN_DIR, "standards", "hl7v2_2.5.1.yaml");
  const doc = readBuiltinYaml(path) as DefinitionFile;
  const out = new Map<string, SegmentFields>();
  for (const [segment, def] of Object.entries(doc.entities ?? {})) {
    const fields: SegmentFields = { names: [], composite: [] };
    for (const f of def.fields ?? []) {
      const position = Number(f.name);
      if (!Number.isInteger(position) || position < 1) continue;
      if (typeof f.alias === "string") fields.names[position - 1] = f.alias;
      fields.composite[position - 1] = typeof f.type === "string" && !PRIMITIVE.has(f.type);
    }
    out.set(segment, fields);
  }
  if (file === undefined) cached = out;
  return out;
}
