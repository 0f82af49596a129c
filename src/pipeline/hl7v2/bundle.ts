// One parsed message + a compiled crossmap -> one FHIR Bundle (collection or transaction) whose entries'
// fullUrls are the urn:uuid references the crossmap wrote, the issues of its records, and the segment
// types no crossmap entity maps (counted, never silently dropped).
import { Crossmap } from "../../crossmap/crossmap.js";
import type { MappingIssue, MapResult, Position, SourceRecord, TargetRecord } from "../../crossmap/types.js";
import type { Hl7Message } from "./message.js";

export type BundleType = "collection" | "transaction";

/**
 * The mapper of a segment type, or undefined when nothing maps it. The pipeline's MappingPlan has this
 * shape (so `--via` chains work), and `segmentMappers` adapts a single Crossmap.
 */
export interface SegmentMappers {
  mapperFor(
    entity: string,
  ): { readonly targetEntity: string; map(record: SourceRecord, position?: Position): MapResult } | undefined;
}

export function segmentMappers(source: Crossmap | SegmentMappers): SegmentMappers {
  if (!(source instanceof Crossmap)) return source;
  return { mapperFor: (e) => (source.hasEntity(e) ? source.mapper(e) : undefined) };
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

export function messageToBundle(
  msg: Hl7Message,
  mappers: SegmentMappers,
  type: BundleType = "collection",
): MessageResult {
  const entries: TargetRecord[] = [];
  const resources: TargetRecord[] = [];
  const targets: string[] = [];
  const issues: MappingIssue[] = [];
  const unmapped = new Map<string, number>();
  const incomplete: MessageResult["incomplete"] = [];
  const dropped = new Set<string>();
  for (const record of msg.segments) {
    const ctx = record.$ctx;
    const mapper = mappers.mapperFor(ctx.type);
    if (mapper === undefined) {
      unmapped.set(ctx.type, (unmapped.get(ctx.type) ?? 0) + 1);
      continue;
    }
    const r = mapper.map(record, ctx.position);
    for (const i of r.issues) issues.push(i);
    if (r.issues.some((i) => i.code === "missing_required")) {
      incomplete.push({ type: ctx.type, position: ctx.position });
      dropped.add(ctx.fullUrl);
      continue;
    }
    const resource = r.value;
    resources.push(resource);
    targets.push(mapper.targetEntity);
    const entry: TargetRecord = { fullUrl: ctx.fullUrl, resource };
    if (type === "transaction") {
      // PUT keeps the deterministic id on the server, so re-sending a message updates instead of duplicating.
      const rt = String(resource.resourceType ?? mapper.targetEntity);
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
