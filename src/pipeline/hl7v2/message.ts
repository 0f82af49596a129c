// One raw message -> its segment records, each with a context object (`$ctx`) that gives it a
// deterministic id and the fullUrls of the segments it belongs with, so resources of one message
// reference each other. Or, for a malformed message, a report of where and why.
import type { MappingIssue } from "../../crossmap/types.js";
import { hashHex } from "../../hash.js";
import { ER7 } from "../../transforms/hl7v2-value.js";
import type { LineFault } from "./decode.js";
import { compileUnescape, type Delimiters, readDelimiters } from "./delimiters.js";
import { linkByStructure } from "./link.js";
import type { FieldNames } from "./names.js";
import { readProblem, segmentPosition, segmentProblems } from "./problems.js";
import { compileSegmentParser, SEGMENT_ID, type SegmentParser, type SegmentRecord } from "./segment.js";
import type { RawMessage } from "./split.js";
import { type MessageStructures, structureOf } from "./structure.js";

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
  /** The run's --identifier-systems site table, for hl7v2_field (not enumerable). */
  identifier_systems?: ReadonlyMap<string, string>;
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
  /** `--identifier-systems`, passed to every record as `$ctx.identifier_systems` (not enumerable). */
  identifierSystems?: ReadonlyMap<string, string>;
  /** Invalid UTF-8 the decoder replaced, by line (`base` is the line number of index 0). */
  faults?: { base: number; lines: ReadonlyMap<number, LineFault[]> };
}

const MSH = Symbol("msh");
const CHILD = Symbol("child");
const SEG = Symbol("seg");
const IDS = Symbol("identifier_systems");

/**
 * A segment's context. `msh`, `child` and `seg` are getters over symbol-keyed fields: not enumerable, so
 * that a record stays printable (the MSH record's own context points back at it), at the cost of plain
 * assignments rather than three defineProperty calls per segment.
 */
class Context {
  declare id: string;
  declare fullUrl: string;
  declare type: string;
  declare message: number;
  declare segment: number;
  declare position: string;
  declare ref: Record<string, string>;
  declare children: Record<string, { reference: string }[]>;
  declare timezone?: string;
  declare bundle?: string;
  declare [MSH]: SegmentRecord;
  declare [CHILD]: SegmentContext["child"];
  declare [SEG]: SegmentContext["seg"];
  declare [IDS]: ReadonlyMap<string, string> | undefined;

  constructor(
    id: string,
    type: string,
    message: number,
    segment: number,
    file: string | undefined,
    msh: SegmentRecord,
  ) {
    this.id = id;
    this.fullUrl = `urn:uuid:${id}`;
    this.type = type;
    this.message = message;
    this.segment = segment;
    this.position = segmentPosition(file, message, segment, type);
    this.ref = {};
    this.children = {};
    this[MSH] = msh;
    this[CHILD] = {};
    this[SEG] = {};
    this[IDS] = undefined;
  }

  get msh(): SegmentRecord {
    return this[MSH];
  }
  get child(): SegmentContext["child"] {
    return this[CHILD];
  }
  get seg(): SegmentContext["seg"] {
    return this[SEG];
  }
  /** The run's --identifier-systems site table (not enumerable, like msh). */
  get identifier_systems(): ReadonlyMap<string, string> | undefined {
    return this[IDS];
  }
}

/** Deterministic: the same segment text always gives the same id, whatever the line ends were. */
function uuidFrom(hash: string, n: number): string {
  const h = hash.slice(0, 26) + n.toString(16).padStart(6, "0");
  const variant = ((Number.parseInt(h[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const ORDER_GROUP_PARENTS = new Set(["OBR", "RXA", "RXE", "RXO"]);
/** The defaults of `mapped` and `consumed`, one function each so that link plans (link.ts) are kept. */
const ALL = (): boolean => true;
const NONE = (): boolean => false;

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
  const hash = hashHex("sha1", raw.segments.join("\r"));
  const mapped = options.mapped ?? ALL;
  const consumed = options.consumed ?? NONE;
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
    const ctx = new Context(uuidFrom(hash, i + 1), type, raw.index, i + 1, file, msh);
    if (options.timezone !== undefined) ctx.timezone = options.timezone;
    if (options.bundle !== undefined) ctx.bundle = options.bundle;
    if (options.identifierSystems !== undefined) ctx[IDS] = options.identifierSystems;
    (record as { $ctx?: SegmentContext }).$ctx = ctx;
    records.push(record as Hl7Message["segments"][number]);
  }
  const type = fieldText(msh, 9, 1);
  const structure = options.structures
    ? structureOf(options.structures, type, fieldText(msh, 9, 2), fieldText(msh, 9, 3))
    : undefined;
  if (structure) {
    const name = options.structures?.events.get(`${type}^${fieldText(msh, 9, 2)}`) ?? fieldText(msh, 9, 3);
    linkByStructure(records, structure, name as string, mapped);
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
