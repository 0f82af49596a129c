// One ER7 segment line -> a record keyed by HL7 position ("3", "5"), by field name from the HL7 v2.5.1
// definition ("patient_name"), and by repetition ("3$2" is the second repetition of field 3).
// Fields are split and unescaped on first read, then kept: a crossmap reads a handful of the dozens of
// fields of a segment, and splitting the rest was most of the reader's time.
import { FIELD_AT } from "../../crossmap/paths.js";
import {
  ER7,
  type Er7Node,
  type Er7Split,
  er7Split,
  fieldValue,
  repetitionNode,
} from "../../transforms/hl7v2-value.js";
import type { Delimiters } from "./delimiters.js";
import type { FieldNames, SegmentFields } from "./names.js";

export type SegmentRecord = Record<string, unknown> & { [ER7]: true };

/** Segments whose first two fields are the delimiters themselves: MSH-1 is "|" and MSH-2 is "^~\&". */
export const HEADER_SEGMENTS = new Set(["MSH", "FHS", "BHS"]);

export const SEGMENT_ID = /^[A-Z][A-Z0-9]{2}$/;

/** HL7's explicit null (`""`): "delete this value". We have nothing to delete, so it reads as absent. */
const HL7_NULL = '""';
/** Fields addressable on segments without a definition (Z segments, ...), and repetitions by `n$r`. */
const MAX_FIELDS = 100;
const MAX_REPETITION = 9;
const ABSENT = Symbol("absent");

export type SegmentParser = (line: string) => SegmentRecord;

type FieldReader = (text: string, position: number) => string | Er7Node;

/**
 * The record and field being read, for the escape problems its unescaping reports (problems.ts): reading
 * is synchronous, so one slot is enough.
 */
export const reading: { record: object | undefined; field: number } = { record: undefined, field: 0 };

// Symbol keys: invisible to JSON, Object.keys and crossmap paths, and cheap to set in a constructor.
const PARTS = Symbol("parts");
const CACHE = Symbol("cache");

interface LazyRecord {
  [PARTS]: string[];
  [CACHE]: (string | Er7Node | typeof ABSENT | undefined)[];
  field(n: number): string | Er7Node | undefined;
}

function positionGetter(n: number): (this: LazyRecord) => string | Er7Node | undefined {
  return function (this: LazyRecord) {
    return this.field(n);
  };
}

/** `n` and its repetitions `n$2` .. `n$9` as getters over `this.field(n)`. */
function defineFieldGetters(target: object, n: number): void {
  Object.defineProperty(target, String(n), { get: positionGetter(n), enumerable: false });
  for (let r = 2; r <= MAX_REPETITION; r++) {
    Object.defineProperty(target, `${n}$${r}`, {
      get(this: LazyRecord) {
        const rep = er7Split(this.field(n))?.[r - 1];
        return rep === undefined ? undefined : fieldValue([rep]);
      },
      enumerable: false,
    });
  }
}

let shared: object | undefined;

/** The getters of fields 1 .. MAX_FIELDS, shared by every record class. */
function sharedGetters(): object {
  if (shared === undefined) {
    const getters = {};
    for (let n = 1; n <= MAX_FIELDS; n++) defineFieldGetters(getters, n);
    shared = getters;
  }
  return shared;
}

function readField(record: object, read: FieldReader, text: string, n: number): string | Er7Node {
  reading.record = record;
  reading.field = n;
  return read(text, n);
}

/**
 * The record class of one segment type under one delimiter set: a getter per position, alias and
 * repetition on the prototype, so a record costs one object and the split of its line into fields.
 */
function recordClass(read: FieldReader, header: boolean, fs: string, info: SegmentFields | undefined) {
  const shift = header ? 1 : 0;
  // Plain assignments, not class fields: a class field is defined (not assigned) on every instance, the
  // slower path, and a message makes a record per segment.
  class Segment {
    declare [PARTS]: string[];
    declare [CACHE]: (string | Er7Node | typeof ABSENT | undefined)[];
    constructor(parts: string[]) {
      this[PARTS] = parts;
      this[CACHE] = [];
    }
  }
  const proto = Segment.prototype as unknown as Record<PropertyKey, unknown>;
  proto[ER7] = true;
  function field(this: LazyRecord, n: number): string | Er7Node | undefined {
    const cache = this[CACHE];
    const hit = cache[n];
    if (hit !== undefined) return hit === ABSENT ? undefined : hit;
    let v: string | Er7Node | undefined;
    if (header && n === 1) v = fs;
    else {
      const text = this[PARTS][n - shift];
      v =
        text === undefined || text === "" || text === HL7_NULL
          ? undefined
          : header && n === 2
            ? text
            : readField(this, read, text, n);
    }
    cache[n] = v === undefined ? ABSENT : v;
    return v;
  }
  proto.field = field;
  // Numbered keys for crossmap getters without the accessors below (paths.ts FIELD_AT): the same values.
  const last = Math.max(MAX_FIELDS, info?.names.length ?? 0);
  proto[FIELD_AT] = function (this: LazyRecord, n: number): string | Er7Node | undefined {
    return n <= last ? this.field(n) : undefined;
  };
  // Position and repetition getters are the same for every segment type: they live on one shared object
  // (built once); a type's own object adds its aliases and sits between it and the prototype. Defining
  // ~1,000 getters per type on the prototype itself cost ~10 ms a type (V8 makes adding properties to an
  // object already serving as a prototype costly): 0.2-0.5 s of an HL7 v2 run's start.
  const own: Record<PropertyKey, unknown> = {};
  const count = info?.names.length ?? 0;
  for (let n = 1; n <= count; n++) {
    const alias = info?.names[n - 1];
    if (alias !== undefined) Object.defineProperty(own, alias, { get: positionGetter(n), enumerable: false });
  }
  for (let n = MAX_FIELDS + 1; n <= count; n++) defineFieldGetters(own, n);
  Object.setPrototypeOf(own, sharedGetters());
  Object.setPrototypeOf(proto, own);
  /** Every present field, repetition and alias, as the eager form would hold them (for printing and tests). */
  proto.toJSON = function (this: LazyRecord & Record<string, unknown>) {
    const out: Record<string, unknown> = {};
    for (let n = 1; n < this[PARTS].length + shift; n++) {
      const v = this.field(n);
      if (v === undefined) continue;
      out[String(n)] = v;
      const reps = er7Split(v)?.length ?? 1;
      for (let r = 2; r <= Math.min(reps, MAX_REPETITION); r++) out[`${n}$${r}`] = this[`${n}$${r}`];
      const alias = info?.names[n - 1];
      if (alias !== undefined) out[alias] = v;
    }
    for (const k of Object.keys(this)) out[k] = this[k];
    return out;
  };
  return (parts: string[]): SegmentRecord => new Segment(parts) as unknown as SegmentRecord;
}

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
  // HL7's explicit null inside a field (a repetition, component or subcomponent `""`) reads as absent too.
  const leaf = (s: string): string => (s === HL7_NULL ? "" : s.includes(es) ? unescapeText(s) : s);
  const classes = new Map<string, (parts: string[]) => SegmentRecord>();

  // Loops rather than nested map() closures: this is the reader's hottest code.
  const splitText = (text: string): Er7Split => {
    const reps = text.split(rs);
    const out: Er7Split = new Array(reps.length);
    for (let r = 0; r < reps.length; r++) {
      const comps = (reps[r] as string).split(cs);
      const rep: string[][] = new Array(comps.length);
      for (let c = 0; c < comps.length; c++) {
        const comp = comps[c] as string;
        if (!comp.includes(ss)) rep[c] = [leaf(comp)];
        else {
          const subs = comp.split(ss);
          for (let k = 0; k < subs.length; k++) subs[k] = leaf(subs[k] as string);
          rep[c] = subs;
        }
      }
      out[r] = rep;
    }
    return out;
  };
  const readerFor =
    (composite: boolean[] | undefined): FieldReader =>
    (text, n) => {
      if (text.includes(rs) || text.includes(ss) || text.includes(es)) return fieldValue(splitText(text));
      if (!text.includes(cs))
        return composite?.[n - 1] === true ? repetitionNode([[text]], [[[text]]]) : text;
      // Components only, nothing to unescape (most composite fields): one split.
      const comps = text.split(cs);
      const rep: string[][] = new Array(comps.length);
      for (let c = 0; c < comps.length; c++) {
        const comp = comps[c] as string;
        rep[c] = [comp === HL7_NULL ? "" : comp];
      }
      return repetitionNode(rep, [rep]);
    };

  return (line) => {
    const parts = line.split(fs);
    const type = parts[0] as string;
    let create = classes.get(type);
    if (create === undefined) {
      const info = names.get(type);
      create = recordClass(readerFor(info?.composite), HEADER_SEGMENTS.has(type), fs, info);
      classes.set(type, create);
    }
    return create(parts);
  };
}
