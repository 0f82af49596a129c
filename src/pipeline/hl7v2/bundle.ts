// One parsed message + a compiled crossmap -> one FHIR Bundle (collection or transaction) whose entries'
// fullUrls are the urn:uuid references the crossmap wrote, the issues of its records, and the segment
// types no crossmap entity maps (counted, never silently dropped).
import { Crossmap } from "../../crossmap/crossmap.js";
import { fillIn } from "../../crossmap/fill-in.js";
import { EMPTY_GATHER_PLAN, type GatherItem, type GatherPlan, gather } from "../../crossmap/gather.js";
import type {
  MapAllResult,
  MappingIssue,
  MapResult,
  Position,
  SourceRecord,
  TargetRecord,
} from "../../crossmap/types.js";
import { deriveId } from "../../transforms/derived-id.js";
import type { Hl7Message, SegmentContext } from "./message.js";

export type BundleType = "collection" | "transaction";

/**
 * The mapper of a segment type, or undefined when nothing maps it. The pipeline's MappingPlan has this
 * shape (so `--via` chains work), and `segmentMappers` adapts a single Crossmap.
 */
export interface SegmentMappers {
  mapperFor(entity: string):
    | {
        readonly targetEntity: string;
        map(record: SourceRecord, position?: Position): MapResult;
        readonly multi?: boolean;
        mapAll?(record: SourceRecord, position?: Position): MapAllResult;
      }
    | undefined;
  /** Gathering within a message (a multi-line text report into one document). */
  readonly gather?: GatherPlan;
}

export function segmentMappers(source: Crossmap | SegmentMappers): SegmentMappers {
  if (!(source instanceof Crossmap)) return source;
  return {
    mapperFor: (e) => (source.hasEntity(e) ? source.mapper(e) : undefined),
    gather: source.gatherPlan,
  };
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

interface Produced {
  ctx: SegmentContext;
  /** The fullUrl of this resource in the Bundle. */
  fullUrl: string;
  id?: string | number | bigint;
  dedupe: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The fullUrl of one produced resource: the segment's own for its first output (as references to segments
 * in `$ctx.ref` expect), `urn:uuid:<id>` for a resource whose id is a UUID (a derived id), else one derived
 * from the segment and the output.
 */
function fullUrlOf(ctx: SegmentContext, output: string, index: number, value: TargetRecord): string {
  if (typeof value.id === "string" && UUID.test(value.id)) return `urn:uuid:${value.id}`;
  if (index === 0) return ctx.fullUrl;
  return `urn:uuid:${String(deriveId([ctx.id], output, "uuid"))}`;
}

export function messageToBundle(
  msg: Hl7Message,
  mappers: SegmentMappers,
  type: BundleType = "collection",
): MessageResult {
  const issues: MappingIssue[] = [];
  const unmapped = new Map<string, number>();
  const incomplete: MessageResult["incomplete"] = [];
  const dropped = new Set<string>();
  const items: GatherItem<Produced>[] = [];
  for (const record of msg.segments) {
    const ctx = record.$ctx;
    const mapper = mappers.mapperFor(ctx.type);
    if (mapper === undefined) {
      unmapped.set(ctx.type, (unmapped.get(ctx.type) ?? 0) + 1);
      continue;
    }
    if (mapper.multi === true && mapper.mapAll !== undefined) {
      const r = mapper.mapAll(record, ctx.position);
      for (const i of r.issues) issues.push(i);
      // A missing required field leaves out the output it belongs to (the issue's target starts with its name).
      const missing = r.issues
        .filter((i) => i.code === "missing_required")
        .map((i) => i.target.split(".")[0]);
      r.outputs.forEach((o, index) => {
        const name = o.output.slice(ctx.type.length + 1);
        const fullUrl = fullUrlOf(ctx, o.output, index, o.value);
        if (missing.includes(name)) {
          incomplete.push({ type: ctx.type, position: ctx.position });
          dropped.add(fullUrl);
          return;
        }
        const produced: Produced = { ctx, fullUrl, dedupe: o.dedupe === true };
        if (o.id !== undefined) produced.id = o.id;
        const item: GatherItem<Produced> = {
          output: o.output,
          entity: o.entity,
          value: o.value,
          place: produced,
        };
        if (o.key !== undefined) item.key = o.key;
        if (o.into !== undefined) item.into = o.into;
        items.push(item);
      });
      continue;
    }
    const r = mapper.map(record, ctx.position);
    for (const i of r.issues) issues.push(i);
    if (r.issues.some((i) => i.code === "missing_required")) {
      incomplete.push({ type: ctx.type, position: ctx.position });
      dropped.add(ctx.fullUrl);
      continue;
    }
    items.push({
      output: `${ctx.type}.${mapper.targetEntity}`,
      entity: mapper.targetEntity,
      value: r.value,
      place: { ctx, fullUrl: ctx.fullUrl, dedupe: false },
    });
  }
  const outcome = gather(mappers.gather ?? EMPTY_GATHER_PLAN, items);
  for (const o of outcome.orphans) {
    dropped.add(o.place.fullUrl);
    issues.push({
      record: o.place.ctx.position,
      field: o.place.ctx.type,
      target: o.output,
      code: "orphan_record",
      severity: "error",
      message: `${o.output} was to be gathered into a record of this message with key ${JSON.stringify(o.into?.key)}, which the message does not produce; it was not written`,
    });
  }
  // Deduplication: one resource per (type, derived id) in the message; references already agree on its id.
  const byId = new Map<string, GatherItem<Produced>>();
  const kept: GatherItem<Produced>[] = [];
  for (const t of outcome.top) {
    const id = t.place.id;
    if (t.place.dedupe && id !== undefined) {
      const k = `${t.entity}\u0000${String(id)}`;
      const first = byId.get(k);
      if (first) {
        fillIn(first.value, t.value);
        continue;
      }
      byId.set(k, t);
    }
    kept.push(t);
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
  if (dropped.size > 0) for (const r of resources) dropReferences(r, dropped);
  const bundle: TargetRecord = { resourceType: "Bundle", id: msg.id, type };
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
