// One raw message -> its segment records, each with a context object (`$ctx`) that gives it a
// deterministic id and the fullUrls of the segments it belongs with, so resources of one message
// reference each other. Or, for a malformed message, a report of where and why.
import { createHash } from "node:crypto";
import type { MappingIssue } from "../../crossmap/types.js";
import { ER7 } from "../../transforms/hl7v2-value.js";
import type { LineFault } from "./decode.js";
import { compileUnescape, type Delimiters, readDelimiters } from "./delimiters.js";
import type { FieldNames } from "./names.js";
import { readProblem, segmentPosition, segmentProblems } from "./problems.js";
import { compileSegmentParser, SEGMENT_ID, type SegmentParser, type SegmentRecord } from "./segment.js";
import type { RawMessage } from "./split.js";
import {
  type GroupInstance,
  type MessageStructures,
  type Placement,
  placeSegments,
  structureOf,
} from "./structure.js";

/**
 * What a segment record knows about its message, under the key `$ctx` (crossmap paths such as
 * `OBX.$ctx.ref.PID`). With a known message structure (crossmaps/standards/hl7v2/message-structures.yaml)
 * each segment is placed in its segment group, and:
 * - `group` / `path`: its innermost group (`OBSERVATION`) and the groups around it (`PATIENT_RESULT.ORDER_OBSERVATION.OBSERVATION`);
 * - `parent_type` and `ref.parent`: the segment it belongs to, the nearest required single segment before it
 *   in its group or, for the first of a group, before the group (OBX -> OBR, NTE -> OBX, ROL -> PID or PV1,
 *   IN2 -> IN1, OBX of a VXU -> RXA, OBX of an MDM -> TXA);
 * - `ref.<TYPE>`: the nearest segment of that type in its group, or in the groups around it (not inside
 *   other repetitions of a repeating group), so an OBX knows its own OBR, ORC and the patient's PID;
 * - `children.<TYPE>`: on a parent, references to the segments that belong to it (DiagnosticReport.result);
 * - `child.<TYPE>`: on a parent, the first such segment's record, to read its fields (`PID.$ctx.child.PD1.4`);
 * - `seg.<TYPE>`: the record `ref.<TYPE>` names, for any type, to read its fields (`RXE.$ctx.seg.ORC.5`).
 * Without a known structure, `ref.PID`/`ref.PV1` are the message's first, and an ORC, OBR, RXA, RXE or RXO
 * opens an order group (`ref.ORC`, `ref.OBR`, ..., `ref.parent` the latest OBR/RXA/RXE/RXO).
 * References (`ref`, `children`) are made only to segment types the crossmap maps, so a reference never
 * points outside its Bundle.
 */
export interface SegmentContext {
  /** FHIR id of the resource made from this segment: a UUID derived from the message text and position. */
  id: string;
  fullUrl: string;
  type: string;
  /** 1-based message index in the input and segment index in the message. */
  message: number;
  segment: number;
  /** `file#message/segment TYPE`, for issues. */
  position: string;
  ref: Record<string, string>;
  children: Record<string, { reference: string }[]>;
  child: Record<string, SegmentRecord>;
  /** The record of the segment `ref.<TYPE>` would name, for every type (mapped or not): `RXE.$ctx.seg.ORC.5`. */
  seg: Record<string, SegmentRecord & { $ctx: SegmentContext }>;
  /** The message structure (`ORU_R01`) when known. */
  structure?: string;
  group?: string;
  path?: string;
  parent_type?: string;
  /** The run's --assume-timezone, for hl7v2_field. */
  timezone?: string;
  /** The Bundle type (`collection`, `transaction`, `message`). */
  bundle?: string;
  /** The MSH record of the message, e.g. `$ctx.msh.9.2` for the trigger event. */
  msh: SegmentRecord;
}

export interface Hl7Message {
  file?: string;
  index: number;
  /** A UUID derived from the message text: the Bundle id. */
  id: string;
  delimiters: Delimiters;
  segments: (SegmentRecord & { $ctx: SegmentContext })[];
  /** What reading the text found wrong (invalid UTF-8, forbidden characters), by segment and field. */
  problems?: MappingIssue[];
}

export interface MalformedMessage {
  file?: string;
  index: number;
  /** 1-based segment index in the message, and its type, where the problem is. */
  segment: number;
  segmentType: string;
  line: number;
  message: string;
}

export interface ParseOptions {
  file?: string;
  /** Field names per segment type (see names.ts); none when omitted. */
  names?: FieldNames;
  /**
   * Segment types that become resources: references are only made to these, and only their fields (and
   * MSH's) are split; other segments keep just their context. Default: all.
   */
  mapped?: (type: string) => boolean;
  /** Segment types a crossmap reads through their parent (`$ctx.child.PD1`): parsed, not referenced. */
  consumed?: (type: string) => boolean;
  /** Message structures to place segments in (default: none, positional linking). */
  structures?: MessageStructures;
  /** `--assume-timezone`, passed to every record as `$ctx.timezone`. */
  timezone?: string;
  /** The Bundle type being made, passed as `$ctx.bundle` (a crossmap writes a MessageHeader for `message`). */
  bundle?: string;
  /** Invalid UTF-8 the decoder replaced, by line (`base` is the line number of index 0). */
  faults?: { base: number; lines: ReadonlyMap<number, LineFault[]> };
}

/** Deterministic: the same segment text always gives the same id, whatever the line ends were. */
function uuidFrom(hash: string, n: number): string {
  const h = hash.slice(0, 26) + n.toString(16).padStart(6, "0");
  const variant = ((Number.parseInt(h[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const ORDER_GROUP_PARENTS = new Set(["OBR", "RXA", "RXE", "RXO"]);

// Parsers (and the record classes they build) are compiled once per delimiter set and names table;
// a feed rarely uses more than one delimiter set, so a small bound keeps a hostile input from growing it.
const NO_NAMES: FieldNames = new Map();
const parserCache = new WeakMap<FieldNames, Map<string, SegmentParser>>();

export function parserFor(d: Delimiters, names: FieldNames = NO_NAMES): SegmentParser {
  const key = `${d.field}${d.component}${d.repetition}${d.escape}${d.subcomponent}${d.truncation ?? ""}`;
  let byKey = parserCache.get(names);
  if (byKey === undefined) {
    byKey = new Map();
    parserCache.set(names, byKey);
  }
  let p = byKey.get(key);
  if (p === undefined) {
    p = compileSegmentParser(d, compileUnescape(d, readProblem), names);
    if (byKey.size < 64) byKey.set(key, p);
  }
  return p;
}

export function parseMessage(raw: RawMessage, options: ParseOptions = {}): Hl7Message | MalformedMessage {
  const file = options.file;
  const bad = (segment: number, message: string): MalformedMessage => {
    const m: MalformedMessage = {
      index: raw.index,
      segment,
      segmentType: (raw.segments[segment - 1] ?? "").slice(0, 3),
      line: raw.lines?.[segment - 1] ?? raw.line + segment - 1,
      message,
    };
    if (file !== undefined) m.file = file;
    return m;
  };
  const first = raw.segments[0] as string;
  if (!first.startsWith("MSH")) {
    // Quoted as JSON: what stands there may be anything (random bytes), and must not reach a terminal raw.
    const n = raw.segments.length;
    const lines = n === 1 ? `line ${raw.line}` : `${n} lines from line ${raw.line}`;
    return bad(
      1,
      `${lines} ${n === 1 ? "is" : "are"} no HL7 v2 message: no MSH segment starts ${n === 1 ? "it" : "them"} (the first begins ${JSON.stringify(first.slice(0, 20))}); not read`,
    );
  }
  const delimiters = readDelimiters(first);
  if (typeof delimiters === "string") return bad(1, delimiters);
  for (let i = 0; i < raw.segments.length; i++) {
    const s = raw.segments[i] as string;
    const id = s.slice(0, 3);
    if (!SEGMENT_ID.test(id) || (s.length > 3 && s[3] !== delimiters.field)) {
      return bad(
        i + 1,
        `${JSON.stringify(s.slice(0, 20))} is not a segment: expected a 3-character id and "${delimiters.field}"`,
      );
    }
  }
  const { problems, segments } = segmentProblems(raw, delimiters, file, options.faults);
  const parse = parserFor(delimiters, options.names);
  const hash = createHash("sha1").update(raw.segments.join("\r")).digest("hex");
  const mapped = options.mapped ?? (() => true);
  const consumed = options.consumed ?? (() => false);
  const records: Hl7Message["segments"] = [];
  const msh = parse(segments[0] as string);
  for (let i = 0; i < raw.segments.length; i++) {
    const type = raw.segments[i]?.slice(0, 3) as string;
    const record =
      i === 0
        ? msh
        : mapped(type) || consumed(type)
          ? parse(segments[i] as string)
          : ({ [ER7]: true } as SegmentRecord);
    const id = uuidFrom(hash, i + 1);
    const ctx: SegmentContext = {
      id,
      fullUrl: `urn:uuid:${id}`,
      type,
      message: raw.index,
      segment: i + 1,
      position: segmentPosition(file, raw.index, i + 1, type),
      ref: {},
      children: {},
    } as unknown as SegmentContext;
    if (options.timezone !== undefined) ctx.timezone = options.timezone;
    if (options.bundle !== undefined) ctx.bundle = options.bundle;
    // Not enumerable: the MSH record's own $ctx points back at it, and a record must stay printable.
    Object.defineProperty(ctx, "msh", { value: msh, enumerable: false });
    Object.defineProperty(ctx, "child", { value: {}, enumerable: false });
    Object.defineProperty(ctx, "seg", { value: {}, enumerable: false });
    records.push(Object.assign(record, { $ctx: ctx }));
  }
  const type = fieldText(msh, 9, 1);
  const structure = options.structures
    ? structureOf(options.structures, type, fieldText(msh, 9, 2), fieldText(msh, 9, 3))
    : undefined;
  if (structure) {
    const name = options.structures?.events.get(`${type}^${fieldText(msh, 9, 2)}`) ?? fieldText(msh, 9, 3);
    linkByStructure(
      records,
      placeSegments(
        structure,
        records.map((r) => r.$ctx.type),
      ),
      mapped,
      name as string,
    );
  } else link(records, mapped);
  const out: Hl7Message = { index: raw.index, id: uuidFrom(hash, 0), delimiters, segments: records };
  if (file !== undefined) out.file = file;
  if (problems !== undefined) out.problems = problems;
  return out;
}

/** Component `c` of field `n` of a record as text ("" when absent). */
function fieldText(record: SegmentRecord, n: number, c: number): string | undefined {
  const v = record[String(n)];
  const x =
    typeof v === "string"
      ? c === 1
        ? v
        : undefined
      : (v as Record<string, unknown> | undefined)?.[String(c)];
  return typeof x === "string" && x !== "" ? x : undefined;
}

const single = (p: Placement | undefined): boolean =>
  p?.node !== undefined && !p.node.optional && !p.node.repeating;

/**
 * Fills the context (see SegmentContext) from the placement of each segment in its message structure.
 * MSH is nobody's parent: it heads the message, not a group.
 */
function linkByStructure(
  records: Hl7Message["segments"],
  placed: Placement[],
  mapped: (type: string) => boolean,
  structure: string,
): void {
  const nearestSingleBefore = (instance: GroupInstance, before: number): number | undefined => {
    let found: number | undefined;
    for (const m of instance.members) {
      if (typeof m !== "number") continue;
      if (m >= before) break;
      if (m > 0 && single(placed[m])) found = m;
    }
    return found;
  };
  const firstSegment = (instance: GroupInstance): number => {
    const m = instance.members[0];
    return typeof m === "number" ? m : m === undefined ? Number.MAX_SAFE_INTEGER : firstSegment(m);
  };
  const parentOf = (i: number): number | undefined => {
    let instance = (placed[i] as Placement).instance;
    let before = i;
    for (;;) {
      const p = nearestSingleBefore(instance, before);
      if (p !== undefined) return p;
      if (instance.parent === undefined) return undefined;
      before = firstSegment(instance);
      instance = instance.parent;
    }
  };
  // The segments a group instance shows to the segments inside it: its own, and those of the
  // non-repeating groups in it (a PATIENT group's PID), but not those of other repetitions.
  const visible = new Map<GroupInstance, number[]>();
  const visibleIn = (instance: GroupInstance): number[] => {
    let v = visible.get(instance);
    if (v === undefined) {
      v = [];
      for (const m of instance.members) {
        if (typeof m === "number") v.push(m);
        else if (!m.repeating) v.push(...visibleIn(m));
      }
      v.sort((a, b) => a - b);
      visible.set(instance, v);
    }
    return v;
  };
  records.forEach((r, i) => {
    const c = r.$ctx;
    const p = placed[i] as Placement;
    c.structure = structure;
    const names: string[] = [];
    for (let g: GroupInstance | undefined = p.instance; g?.parent !== undefined; g = g.parent)
      names.unshift(g.name);
    if (names.length > 0) {
      c.group = names[names.length - 1] as string;
      c.path = names.join(".");
    }
    for (let g: GroupInstance | undefined = p.instance; g !== undefined; g = g.parent) {
      const before = new Map<string, number>();
      const after = new Map<string, number>();
      for (const m of visibleIn(g)) {
        if (m === i) continue;
        const t = records[m]?.$ctx.type as string;
        if (c.seg[t] !== undefined || t === "MSH") continue;
        if (m < i) before.set(t, m);
        else if (!after.has(t)) after.set(t, m);
      }
      for (const t of new Set([...before.keys(), ...after.keys()])) {
        const r2 = records[(before.get(t) ?? after.get(t)) as number] as Hl7Message["segments"][number];
        c.seg[t] = r2;
        if (mapped(t)) c.ref[t] = r2.$ctx.fullUrl;
      }
    }
    // The message's first PID and PV1 when no group holds one (a SIU's SCH and its PATIENT groups).
    for (const t of ["PID", "PV1"]) {
      if (c.seg[t] !== undefined || c.type === t) continue;
      const first = records.find((x) => x.$ctx.type === t);
      if (first === undefined) continue;
      c.seg[t] = first;
      if (mapped(t)) c.ref[t] = first.$ctx.fullUrl;
    }
    const parent = parentOf(i);
    if (parent !== undefined) {
      const pc = (records[parent] as Hl7Message["segments"][number]).$ctx;
      c.parent_type = pc.type;
      if (mapped(pc.type) && mapped(c.type)) {
        c.ref.parent = pc.fullUrl;
        const siblings = pc.children[c.type] ?? [];
        siblings.push({ reference: c.fullUrl });
        pc.children[c.type] = siblings;
      }
      pc.child[c.type] ??= r;
    }
  });
}

/** Fills `ref` and `children` (see SegmentContext) from the order of segments. */
function link(records: Hl7Message["segments"], mapped: (type: string) => boolean): void {
  const ctxOf = (type: string) => records.find((r) => r.$ctx.type === type && mapped(type))?.$ctx;
  const patient = ctxOf("PID");
  const visit = ctxOf("PV1");
  let group: Record<string, SegmentContext> = {};
  let parent: SegmentContext | undefined;
  for (const r of records) {
    const c = r.$ctx;
    if (c.type === "ORC") {
      group = {};
      parent = undefined;
    }
    if (ORDER_GROUP_PARENTS.has(c.type)) {
      if (c.type === "OBR" || group[c.type]) group = group.ORC ? { ORC: group.ORC } : {};
      parent = undefined;
    }
    if (patient && c !== patient) c.ref.PID = patient.fullUrl;
    if (visit && c !== visit && c !== patient) c.ref.PV1 = visit.fullUrl;
    for (const [type, g] of Object.entries(group)) if (mapped(type)) c.ref[type] = g.fullUrl;
    if (parent && mapped(parent.type) && mapped(c.type)) {
      c.ref.parent = parent.fullUrl;
      const siblings = parent.children[c.type] ?? [];
      siblings.push({ reference: c.fullUrl });
      parent.children[c.type] = siblings;
    }
    if (c.type === "ORC" || ORDER_GROUP_PARENTS.has(c.type)) group[c.type] = c;
    if (ORDER_GROUP_PARENTS.has(c.type)) parent = c;
  }
}
