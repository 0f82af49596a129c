// One raw message -> its segment records, each with a context object (`$ctx`) that gives it a
// deterministic id and the fullUrls of the segments it belongs with, so resources of one message
// reference each other. Or, for a malformed message, a report of where and why.
import { createHash } from "node:crypto";
import { ER7 } from "../../transforms/hl7v2-value.js";
import { compileUnescape, type Delimiters, readDelimiters } from "./delimiters.js";
import type { FieldNames } from "./names.js";
import { compileSegmentParser, SEGMENT_ID, type SegmentParser, type SegmentRecord } from "./segment.js";
import type { RawMessage } from "./split.js";

/**
 * What a segment record knows about its message, under the key `$ctx` (crossmap paths such as
 * `OBX.$ctx.ref.PID`). `ref` holds fullUrls (`urn:uuid:...`) of related segments, only for segment types
 * the crossmap maps, so a reference never points outside its Bundle:
 * - `PID`, `PV1`: the message's first patient and visit segments (for every other segment);
 * - `ORC`, `OBR`, `RXA`, `RXE`, `RXO`: the order group the segment is in (an ORC opens a group);
 * - `parent`: the latest OBR, RXA, RXE or RXO of the group, for OBX, NTE and other segments following it.
 * `children` lists, on such a parent, references to the segments following it, by type (`children.OBX`).
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

function parserFor(d: Delimiters, names: FieldNames = NO_NAMES): SegmentParser {
  const key = `${d.field}${d.component}${d.repetition}${d.escape}${d.subcomponent}${d.truncation ?? ""}`;
  let byKey = parserCache.get(names);
  if (byKey === undefined) {
    byKey = new Map();
    parserCache.set(names, byKey);
  }
  let p = byKey.get(key);
  if (p === undefined) {
    p = compileSegmentParser(d, compileUnescape(d), names);
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
      line: raw.line + segment - 1,
      message,
    };
    if (file !== undefined) m.file = file;
    return m;
  };
  const first = raw.segments[0] as string;
  if (!first.startsWith("MSH"))
    return bad(1, `message does not start with MSH but with "${first.slice(0, 20)}"`);
  const delimiters = readDelimiters(first);
  if (typeof delimiters === "string") return bad(1, delimiters);
  for (let i = 0; i < raw.segments.length; i++) {
    const s = raw.segments[i] as string;
    const id = s.slice(0, 3);
    if (!SEGMENT_ID.test(id) || (s.length > 3 && s[3] !== delimiters.field)) {
      return bad(
        i + 1,
        `"${s.slice(0, 20)}" is not a segment: expected a 3-character id and "${delimiters.field}"`,
      );
    }
  }
  const parse = parserFor(delimiters, options.names);
  const hash = createHash("sha1").update(raw.segments.join("\r")).digest("hex");
  const mapped = options.mapped ?? (() => true);
  const prefix = `${file ?? ""}#${raw.index}/`;
  const records: Hl7Message["segments"] = [];
  const msh = parse(first);
  for (let i = 0; i < raw.segments.length; i++) {
    const type = raw.segments[i]?.slice(0, 3) as string;
    const record =
      i === 0 ? msh : mapped(type) ? parse(raw.segments[i] as string) : ({ [ER7]: true } as SegmentRecord);
    const id = uuidFrom(hash, i + 1);
    const ctx: SegmentContext = {
      id,
      fullUrl: `urn:uuid:${id}`,
      type,
      message: raw.index,
      segment: i + 1,
      position: `${prefix}${i + 1} ${type}`,
      ref: {},
      children: {},
    } as SegmentContext;
    // Not enumerable: the MSH record's own $ctx points back at it, and a record must stay printable.
    Object.defineProperty(ctx, "msh", { value: msh, enumerable: false });
    records.push(Object.assign(record, { $ctx: ctx }));
  }
  link(records, mapped);
  const out: Hl7Message = { index: raw.index, id: uuidFrom(hash, 0), delimiters, segments: records };
  if (file !== undefined) out.file = file;
  return out;
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
