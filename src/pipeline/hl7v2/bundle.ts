// One parsed message + a compiled crossmap -> one FHIR Bundle (collection or transaction) whose entries'
// fullUrls are the urn:uuid references the crossmap wrote, the issues of its records, and the segment
// types no crossmap entity maps (counted, never silently dropped).
import { Crossmap } from "../../crossmap/crossmap.js";
import {
  EMPTY_GATHER_PLAN,
  type GatherItem,
  type GatherPlan,
  gather,
  mergeCopy,
} from "../../crossmap/gather.js";
import type {
  MapAllResult,
  MappingIssue,
  MapResult,
  Position,
  SourceRecord,
  TargetRecord,
} from "../../crossmap/types.js";
import { deriveId } from "../../transforms/derived-id.js";
import type { IdentifierSystems } from "./identifier-systems.js";
import { settleIdentities } from "./identities.js";
import type { Hl7Message, SegmentContext } from "./message.js";
import { messageIdentifier } from "./message-identifier.js";

export type BundleType = "collection" | "transaction" | "message";

/**
 * The mapper of a segment type, or undefined when nothing maps it. The pipeline's MappingPlan has this
 * shape (so `--via` chains work), and `segmentMappers` adapts a single Crossmap.
 */
/** What maps one record of a stage: a plan's EntityMapper, or a crossmap's RecordMapper. */
export interface StageMapper {
  readonly targetEntity: string;
  map(record: SourceRecord, position?: Position): MapResult;
  readonly multi?: boolean;
  mapAll?(record: SourceRecord, position?: Position): MapAllResult;
}

/**
 * The mapper of a segment type, or undefined when nothing maps it. The pipeline's MappingPlan has this
 * shape (so `--via` chains work), and `segmentMappers` adapts a single Crossmap.
 */
export interface SegmentMappers {
  /** The segments each entity reads through another (`PID.$ctx.child.PD1.4`, `RXE.$ctx.seg.ORC.5`). */
  readonly reads?: SegmentReads;
  mapperFor(entity: string): StageMapper | undefined;
  /** Gathering within a message (a multi-line text report into one document). */
  readonly gather?: GatherPlan;
  /**
   * A `--via` chain whose earlier crossmap gathers (MappingPlan.stages): `mapperFor` maps the segments (the
   * first stage), and each later stage maps the records the one before wrote, once gathered in the message.
   */
  readonly stages?: readonly {
    mapperFor(entity: string): StageMapper | undefined;
    readonly gather: GatherPlan;
  }[];
}

/** `$ctx.seg.ORC` / `$ctx.child.TQ1` steps of a source path, in order. */
const STEP = /\$ctx\.(seg|child)\.([A-Z][A-Z0-9]{2})\b/g;

/** How an entity reaches other segments' fields: chains of steps, e.g. OBR -> [seg ORC, child TQ1]. */
export type SegmentReads = ReadonlyMap<string, readonly (readonly ["seg" | "child", string])[][]>;

function addReads(out: Map<string, ["seg" | "child", string][][]>, entity: string, path: string): void {
  const chain = [...path.matchAll(STEP)].map((m) => [m[1], m[2]] as ["seg" | "child", string]);
  if (chain.length === 0) return;
  const list = out.get(entity) ?? [];
  if (!list.some((c) => c.join("/") === chain.join("/"))) list.push(chain);
  out.set(entity, list);
}

/** Which segments each entity of a crossmap reads through `$ctx.seg.<TYPE>` and `$ctx.child.<TYPE>`. */
export function segmentReads(source: Crossmap): SegmentReads {
  const out = new Map<string, ["seg" | "child", string][][]>();
  for (const f of source.fieldMappings()) {
    for (const p of [...f.sources, ...f.reads]) addReads(out, f.sourceEntity, p);
  }
  addEntityMapReads(out, source.document);
  return out;
}

/** The same from a crossmap document as parsed YAML (for a plan, which hides its crossmaps). */
export function segmentReadsOfDocument(doc: unknown): SegmentReads {
  const out = new Map<string, ["seg" | "child", string][][]>();
  const fieldMap = (doc as { field_map?: Record<string, unknown> } | null)?.field_map ?? {};
  for (const [key, entry] of Object.entries(fieldMap)) {
    const entity = key.slice(0, key.indexOf("."));
    scanReads(out, entity, key);
    scanReads(out, entity, entry);
  }
  addEntityMapReads(out, doc);
  return out;
}

/**
 * The reads of the outputs themselves: an output's `id` (an Observation's identity reads its order's
 * `$ctx.seg.ORC.3.1`), `when`, `key` and `into`. Missed, a segment read only there was not parsed when no
 * output of its own was wanted (`--via fhir_r4 --to omop_cdm_v5.4` wants no ServiceRequest), and the
 * Observation took another id than `--to fhir_r4` gives it.
 */
function addEntityMapReads(out: Map<string, ["seg" | "child", string][][]>, doc: unknown): void {
  const entityMap = (doc as { entity_map?: Record<string, unknown> } | null)?.entity_map ?? {};
  for (const [entity, entry] of Object.entries(entityMap)) scanReads(out, entity, entry);
}

function scanReads(out: Map<string, ["seg" | "child", string][][]>, entity: string, v: unknown): void {
  if (typeof v === "string") addReads(out, entity, v.startsWith(`${entity}.`) ? v : `${entity}.${v}`);
  else if (Array.isArray(v)) for (const x of v) scanReads(out, entity, x);
  else if (v !== null && typeof v === "object") for (const x of Object.values(v)) scanReads(out, entity, x);
}

const typesOf = new WeakMap<SegmentReads, ReadonlySet<string>>();
const NONE: ReadonlySet<string> = new Set();

/** Every segment type some entity reads through another segment (parsed even when no entity maps it). */
export function readTypes(reads: SegmentReads | undefined): ReadonlySet<string> {
  if (reads === undefined) return NONE;
  let out = typesOf.get(reads);
  if (out === undefined) {
    const s = new Set<string>();
    for (const chains of reads.values()) for (const c of chains) for (const [, t] of c) s.add(t);
    out = s;
    typesOf.set(reads, out);
  }
  return out;
}

const adapted = new WeakMap<Crossmap, SegmentMappers>();

/** A crossmap as SegmentMappers, made once per crossmap (its reads are found by walking its fields). */
export function segmentMappers(source: Crossmap | SegmentMappers): SegmentMappers {
  if (!(source instanceof Crossmap)) return source;
  let m = adapted.get(source);
  if (m === undefined) {
    m = {
      reads: segmentReads(source),
      mapperFor: (e) => (source.hasEntity(e) ? source.mapper(e) : undefined),
      gather: source.gatherPlan,
    };
    adapted.set(source, m);
  }
  return m;
}

export interface MessageResult {
  bundle: TargetRecord;
  resources: TargetRecord[];
  /** The target entity of each resource (its type with a FHIR crossmap; a table name after `--via`). */
  targets: string[];
  issues: MappingIssue[];
  /** Segment type -> number of segments of that type in this message that no entity maps. */
  unmapped: Map<string, number>;
  /**
   * Segments whose resource was left out because a `required` field was absent (an Observation without
   * OBX-3 would be invalid FHIR); their missing_required issues are in `issues`, references to them removed.
   */
  incomplete: { type: string; position: string }[];
}

export interface Produced {
  ctx: SegmentContext;
  /** The fullUrl of this resource in the Bundle. */
  fullUrl: string;
  /**
   * The segment's own fullUrl (what `$ctx.ref` points at), when this, its first resource, took another one
   * from its id (an id from business identifiers): references to it are rewritten to `fullUrl`.
   */
  replaces?: string;
  id?: string | number | bigint;
  dedupe: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a mapped record is made from: a segment, or (in a later stage) a record an earlier stage wrote. */
interface Origin {
  ctx: SegmentContext;
  /** `<segment type>` or the earlier record's entity: output keys are `<entity>.<output name>`. */
  entity: string;
  /** The fullUrl its first output takes (what `$ctx.ref` points at for a segment). */
  fullUrl: string;
  /** The value other outputs' fullUrls are derived from. */
  seed: string;
}

/**
 * The fullUrl of one produced resource: the origin's own for its first output (as references to segments
 * in `$ctx.ref` expect), `urn:uuid:<id>` for a resource whose id is a UUID (a derived id), else one derived
 * from the origin and the output.
 */
function fullUrlOf(origin: Origin, output: string, index: number, value: TargetRecord): string {
  if (typeof value.id === "string" && UUID.test(value.id)) return `urn:uuid:${value.id}`;
  if (index === 0) return origin.fullUrl;
  return `urn:uuid:${String(deriveId([origin.seed], output, "uuid"))}`;
}

/** What one message's mapping collects besides its resources. */
interface Collected {
  issues: MappingIssue[];
  incomplete: MessageResult["incomplete"];
  /** fullUrls of resources left out: references to them are removed. */
  dropped: Set<string>;
}

/** Maps one record and appends what it yields to `items`; an output lacking a required field is left out. */
function produce(
  mapper: StageMapper,
  record: SourceRecord,
  origin: Origin,
  items: GatherItem<Produced>[],
  out: Collected,
): void {
  const { ctx } = origin;
  if (mapper.multi === true && mapper.mapAll !== undefined) {
    const r = mapper.mapAll(record, ctx.position);
    for (const i of r.issues) out.issues.push(i);
    // A missing required field leaves out the output it belongs to (the issue's target starts with its name).
    const missing = r.issues.filter((i) => i.code === "missing_required").map((i) => i.target.split(".")[0]);
    r.outputs.forEach((o, index) => {
      const name = o.output.slice(origin.entity.length + 1);
      const fullUrl = fullUrlOf(origin, o.output, index, o.value);
      if (missing.includes(name)) {
        out.incomplete.push({ type: ctx.type, position: ctx.position });
        out.dropped.add(fullUrl);
        // References name the segment's own fullUrl, whatever id the resource would have had.
        if (index === 0) out.dropped.add(origin.fullUrl);
        return;
      }
      const produced: Produced = { ctx, fullUrl, dedupe: o.dedupe === true };
      if (index === 0 && fullUrl !== origin.fullUrl) produced.replaces = origin.fullUrl;
      if (o.id !== undefined) produced.id = o.id;
      const item: GatherItem<Produced> = {
        output: o.output,
        entity: o.entity,
        value: o.value,
        place: produced,
      };
      if (o.key !== undefined) item.key = o.key;
      if (o.into !== undefined) item.into = o.into;
      if (o.id !== undefined) item.id = String(o.id);
      items.push(item);
    });
    return;
  }
  const r = mapper.map(record, ctx.position);
  for (const i of r.issues) out.issues.push(i);
  if (r.issues.some((i) => i.code === "missing_required")) {
    out.incomplete.push({ type: ctx.type, position: ctx.position });
    out.dropped.add(origin.fullUrl);
    return;
  }
  items.push({
    output: `${origin.entity}.${mapper.targetEntity}`,
    entity: mapper.targetEntity,
    value: r.value,
    place: { ctx, fullUrl: origin.fullUrl, dedupe: false },
  });
}

/**
 * Completes one stage within the message: children into their parents (orphans reported), then one record
 * per (type, derived id) for outputs with `dedupe` (references already agree on its id). Returns the
 * records the stage writes, in order.
 */
function settle(plan: GatherPlan, items: GatherItem<Produced>[], out: Collected): GatherItem<Produced>[] {
  const outcome = gather(plan, items);
  for (const o of outcome.orphans) {
    out.dropped.add(o.place.fullUrl);
    out.issues.push({
      record: o.place.ctx.position,
      field: o.place.ctx.type,
      target: o.output,
      code: "orphan_record",
      severity: "error",
      message: `${o.output} was to be gathered into a record of this message with key ${JSON.stringify(o.into?.key)}, which the message does not produce; it was not written`,
    });
  }
  const byId = new Map<string, GatherItem<Produced>>();
  const kept: GatherItem<Produced>[] = [];
  for (const t of outcome.top) {
    const id = t.place.id;
    if (t.place.dedupe && id !== undefined) {
      const k = `${t.entity}\u0000${String(id)}`;
      const first = byId.get(k);
      if (first) {
        mergeCopy(plan, t.output, first.value, t.value);
        continue;
      }
      byId.set(k, t);
    }
    kept.push(t);
  }
  // A record gathered into another (a text line into its report) is no entry of its own: references to it
  // (a report's result list naming every OBX) are removed, so every reference still resolves.
  const written = new Set(kept.map((t) => t.place.fullUrl));
  for (const item of items) {
    if (written.has(item.place.fullUrl)) continue;
    out.dropped.add(item.place.fullUrl);
    if (item.place.replaces !== undefined) out.dropped.add(item.place.replaces);
  }
  return kept;
}

export interface BundleOptions {
  /** `--strict-segments`: a segment the crossmap does not map is an error, not a warning. */
  strictSegments?: boolean;
  /** `--identifier-systems`: names the sender's system in Bundle.identifier when the message does not. */
  identifierSystems?: IdentifierSystems;
}

/**
 * The segments whose content reaches the Bundle without an entity of their own: those a mapped segment's
 * entity reads through `$ctx.seg.<TYPE>` (an RXE reads its ORC) or `$ctx.child.<TYPE>` (a PID reads its
 * first PD1), following chains (`OBR.$ctx.seg.ORC.$ctx.child.TQ1`). A second PD1 under one PID is not read.
 */
function consumedRecords(msg: Hl7Message, mappers: SegmentMappers): Set<object> {
  const out = new Set<object>();
  if (!mappers.reads || mappers.reads.size === 0) return out;
  for (const r of msg.segments) {
    const chains = mappers.reads.get(r.$ctx.type);
    if (chains === undefined || mappers.mapperFor(r.$ctx.type) === undefined) continue;
    for (const chain of chains) {
      let at: Hl7Message["segments"][number] | undefined = r;
      for (const [kind, t] of chain) {
        at = at?.$ctx[kind][t] as Hl7Message["segments"][number] | undefined;
        if (at === undefined) break;
        out.add(at);
      }
    }
  }
  return out;
}

export function messageToBundle(
  msg: Hl7Message,
  mappers: SegmentMappers,
  type: BundleType = "collection",
  options: BundleOptions = {},
): MessageResult {
  const issues: MappingIssue[] = [];
  const unmapped = new Map<string, number>();
  const incomplete: MessageResult["incomplete"] = [];
  const collected: Collected = { issues, incomplete, dropped: new Set() };
  const dropped = collected.dropped;
  const items: GatherItem<Produced>[] = [];
  const consumed = consumedRecords(msg, mappers);
  for (const record of msg.segments) {
    const ctx = record.$ctx;
    const mapper = mappers.mapperFor(ctx.type);
    if (mapper === undefined) {
      if (consumed.has(record)) continue;
      unmapped.set(ctx.type, (unmapped.get(ctx.type) ?? 0) + 1);
      // Named where it is, so a reader of the Bundle can learn what it does not hold.
      issues.push({
        record: ctx.position,
        field: "",
        target: "",
        code: "unmapped_segment",
        severity: options.strictSegments ? "error" : "warning",
        message: `segment ${ctx.type} is not mapped by the crossmap; its content is not in the Bundle`,
      });
      continue;
    }
    produce(mapper, record, { ctx, entity: ctx.type, fullUrl: ctx.fullUrl, seed: ctx.id }, items, collected);
  }
  const stages = mappers.stages;
  let kept = settle(stages?.[0]?.gather ?? mappers.gather ?? EMPTY_GATHER_PLAN, items, collected);
  // References to a resource whose id came from its business identifiers follow it to its final fullUrl:
  // before any later stage reads them, or, with none, in the one walk that also drops references below.
  const single = stages === undefined || stages.length <= 1;
  const aliases = settleIdentities(kept, items, issues, single);
  // A --via chain whose earlier crossmap gathers: its records are complete now, at the end of the message.
  for (const stage of stages?.slice(1) ?? []) {
    const next: GatherItem<Produced>[] = [];
    for (const t of kept) {
      const { ctx, fullUrl } = t.place;
      const mapper = stage.mapperFor(t.entity);
      if (mapper === undefined) {
        dropped.add(fullUrl);
        issues.push({
          record: ctx.position,
          field: ctx.type,
          target: t.entity,
          code: "unmapped_resource",
          severity: "warning",
          message: `${t.entity} made of segment ${ctx.type} is left out: the next crossmap of the --via chain has no mapping for ${t.entity}`,
        });
        continue;
      }
      produce(mapper, t.value, { ctx, entity: t.entity, fullUrl, seed: fullUrl }, next, collected);
    }
    kept = settle(stage.gather, next, collected);
  }
  const entries: TargetRecord[] = [];
  const resources: TargetRecord[] = [];
  const targets: string[] = [];
  for (const t of kept) {
    const resource = t.value;
    resources.push(resource);
    targets.push(t.entity);
    const entry: TargetRecord = { fullUrl: t.place.fullUrl, resource };
    if (type === "transaction") {
      // PUT keeps the deterministic id on the server, so re-sending a message updates instead of duplicating.
      const rt = String(resource.resourceType ?? t.entity);
      entry.request =
        typeof resource.id === "string"
          ? { method: "PUT", url: `${rt}/${resource.id}` }
          : { method: "POST", url: rt };
    }
    entries.push(entry);
  }
  if (single && aliases.size > 0) {
    for (const r of resources) {
      aliasOwn(r, aliases);
      settleReferences(r, aliases, dropped);
    }
  } else if (dropped.size > 0) for (const r of resources) dropReferences(r, dropped);
  if (type === "message") {
    // FHIR R4: the first entry of a message Bundle is its MessageHeader.
    const k = entries.findIndex((e) => (e.resource as TargetRecord).resourceType === "MessageHeader");
    if (k > 0) entries.unshift(...entries.splice(k, 1));
    if (k < 0) {
      issues.push({
        record: msg.segments[0]?.$ctx.position,
        field: "MSH",
        target: "MessageHeader",
        code: "missing_message_header",
        severity: "error",
        message: "--bundle message needs a MessageHeader, and the crossmap made none from this message",
      });
    }
  }
  const bundle: TargetRecord = { resourceType: "Bundle", id: msg.id };
  // The message's control id, in its sender's system (IG MSH[Bundle]), so a receiver can tell one message
  // from another and a resent one from a new one.
  const identifier = msg.segments[0] && messageIdentifier(msg.segments[0], options.identifierSystems);
  if (identifier) bundle.identifier = identifier;
  bundle.type = type;
  if (entries.length > 0) bundle.entry = entries;
  return { bundle, resources, targets, issues, unmapped, incomplete };
}

const isDropped = (v: unknown, dropped: Set<string>): boolean =>
  v !== null &&
  typeof v === "object" &&
  typeof (v as { reference?: unknown }).reference === "string" &&
  dropped.has((v as { reference: string }).reference);

/** Removes references to left-out resources, so every reference still resolves inside the Bundle. */
function dropReferences(node: Record<string, unknown>, dropped: Set<string>): void {
  for (const [k, v] of Object.entries(node)) {
    if (Array.isArray(v)) {
      const kept = v.filter((x) => !isDropped(x, dropped));
      for (const x of kept) if (x !== null && typeof x === "object") dropReferences(x, dropped);
      if (kept.length === 0) delete node[k];
      else node[k] = kept;
    } else if (isDropped(v, dropped)) delete node[k];
    else if (v !== null && typeof v === "object") dropReferences(v as Record<string, unknown>, dropped);
  }
}

/** Points an object's own `reference` at the resource's final fullUrl when that resource moved. */
function aliasOwn(v: object, aliases: ReadonlyMap<string, string>): void {
  const ref = (v as { reference?: unknown }).reference;
  if (typeof ref !== "string") return;
  const to = aliases.get(ref);
  if (to !== undefined) (v as { reference: string }).reference = to;
}

/**
 * dropReferences and the rewrite of moved references (identities.ts) in one walk of a resource: the
 * profile had the two walks of every resource at ~3.5% of a message's CPU. An object's `reference` is
 * rewritten (by its parent, see aliasOwn) before it is tested against `dropped`, as when the rewrite ran
 * first. for...in and no copies unless something is dropped: most messages move a resource (a patient
 * with business identifiers) and drop none, and Object.entries of every node made this walk cost more
 * than the two it replaced. As dropReferences does, any empty list goes when something was dropped.
 */
function settleReferences(
  node: Record<string, unknown>,
  aliases: ReadonlyMap<string, string>,
  dropped: Set<string>,
): void {
  for (const k in node) {
    const v = node[k];
    if (v === null || typeof v !== "object") continue;
    if (!Array.isArray(v)) {
      aliasOwn(v, aliases);
      if (dropped.size > 0 && isDropped(v, dropped)) delete node[k];
      else settleReferences(v as Record<string, unknown>, aliases, dropped);
      continue;
    }
    for (const x of v) if (x !== null && typeof x === "object") aliasOwn(x, aliases);
    let list = v;
    if (dropped.size > 0) {
      if (v.some((x) => isDropped(x, dropped))) list = v.filter((x) => !isDropped(x, dropped));
      if (list.length === 0) {
        delete node[k];
        continue;
      }
      if (list !== v) node[k] = list;
    }
    for (const x of list) if (x !== null && typeof x === "object") settleReferences(x, aliases, dropped);
  }
}
