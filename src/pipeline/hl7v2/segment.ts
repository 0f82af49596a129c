// One ER7 segment line -> a record keyed by HL7 position ("3", "5"), by field name from the HL7 v2.5.1
// definition ("patient_name"), and by repetition ("3$2" is the second repetition of field 3).
import {
  ER7,
  type Er7Node,
  type Er7Split,
  fieldValue,
  repetitionNode,
} from "../../transforms/hl7v2-value.js";
import type { Delimiters } from "./delimiters.js";
import type { FieldNames } from "./names.js";

export type SegmentRecord = Record<string, unknown> & { [ER7]: true };

/** Segments whose first two fields are the delimiters themselves: MSH-1 is "|" and MSH-2 is "^~\&". */
export const HEADER_SEGMENTS = new Set(["MSH", "FHS", "BHS"]);

export const SEGMENT_ID = /^[A-Z][A-Z0-9]{2}$/;

/** HL7's explicit null (`""`): "delete this value". We have nothing to delete, so it reads as absent. */
const HL7_NULL = '""';

export type SegmentParser = (line: string) => SegmentRecord;

/**
 * Compiles a parser for one delimiter set. `names` gives, per segment type, field aliases and which fields
 * have composite types: those are always nodes, so `PID.3.1` reads "12345" from a bare `12345` too.
 */
export function compileSegmentParser(
  d: Delimiters,
  unescapeText: (s: string) => string,
  names: FieldNames = new Map(),
): SegmentParser {
  const { field: fs, repetition: rs, component: cs, subcomponent: ss, escape: es } = d;
  const leaf = (s: string): string => (s.includes(es) ? unescapeText(s) : s);
  const split = (text: string): Er7Split =>
    text.split(rs).map((rep) => rep.split(cs).map((c) => c.split(ss).map(leaf)));
  const plain = (text: string): boolean =>
    !text.includes(rs) && !text.includes(cs) && !text.includes(ss) && !text.includes(es);

  return (line) => {
    const parts = line.split(fs);
    const type = parts[0] as string;
    const record = { [ER7]: true } as SegmentRecord;
    const header = HEADER_SEGMENTS.has(type);
    const info = names.get(type);
    const fieldNames = info?.names;
    const composite = info?.composite;
    // Header segments: parts[1] is MSH-2; MSH-n is parts[n-1]. Elsewhere SEG-n is parts[n].
    const shift = header ? 1 : 0;
    if (header) {
      record["1"] = fs;
      if (parts[1]) record["2"] = parts[1];
    }
    for (let i = header ? 2 : 1; i < parts.length; i++) {
      const text = parts[i] as string;
      if (text === "" || text === HL7_NULL) continue;
      const n = i + shift;
      const key = String(n);
      let value: string | Er7Node;
      if (composite?.[n - 1] === true && plain(text)) value = repetitionNode([[text]], [[[text]]]);
      else if (plain(text)) value = text;
      else {
        const s = split(text);
        value = fieldValue(s);
        for (let r = 1; r < s.length; r++) record[`${key}$${r + 1}`] = fieldValue([s[r] as string[][]]);
      }
      record[key] = value;
      const name = fieldNames?.[n - 1];
      if (name !== undefined) record[name] = value;
    }
    if (header) {
      const name = fieldNames?.[0];
      if (name !== undefined) record[name] = fs;
    }
    return record;
  };
}
