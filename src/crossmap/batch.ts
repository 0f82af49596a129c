// Maps an in-memory batch of records with one compiled mapper, keeping input order and reporting issues
// per record (the record's index in the batch is its position). The batch is the unit of gathering and
// deduplication: children go inside parents produced by any record of the batch.
import type { Crossmap } from "./crossmap.js";
import { type GatherItem, gather, isHeld } from "./gather.js";
import type { MappingIssue, SourceRecord, TargetRecord } from "./types.js";

export interface BatchResult {
  /**
   * One entry per input record, in input order: its record when it produced exactly one (the spec's
   * form), null when it produced none, and a list when it produced several.
   */
  results: (TargetRecord | TargetRecord[] | null)[];
  issues: MappingIssue[];
  /** The first output's target entity (the only one for a one-to-one entity). */
  targetEntity: string;
  /** Only for entities that may produce several records or none: each entry's target entity (or entities). */
  entities?: (string | string[] | null)[];
  /** Only for such entities: how many target records were produced in all. */
  produced?: number;
}

export function mapBatch(
  crossmap: Crossmap,
  sourceEntity: string,
  records: readonly SourceRecord[],
): BatchResult {
  const mapper = crossmap.mapper(sourceEntity);
  const issues: MappingIssue[] = [];
  if (!mapper.multi || mapper.mapAll === undefined) {
    const results: TargetRecord[] = new Array(records.length);
    for (let i = 0; i < records.length; i++) {
      const r = mapper.map(records[i] as SourceRecord, i);
      results[i] = r.value;
      for (const issue of r.issues) issues.push(issue);
    }
    return { results, issues, targetEntity: mapper.targetEntity };
  }
  const plan = crossmap.gatherPlan;
  const perRecord: { value: TargetRecord; entity: string }[][] = records.map(() => []);
  const held: GatherItem<number>[] = [];
  for (let i = 0; i < records.length; i++) {
    const r = mapper.mapAll(records[i] as SourceRecord, i);
    for (const issue of r.issues) issues.push(issue);
    for (const o of r.outputs) {
      if (isHeld(plan, o.output, o.into)) {
        const item: GatherItem<number> = { output: o.output, entity: o.entity, value: o.value, place: i };
        if (o.key !== undefined) item.key = o.key;
        if (o.into !== undefined) item.into = o.into;
        if (o.id !== undefined) item.id = String(o.id);
        held.push(item);
      } else
        (perRecord[i] as { value: TargetRecord; entity: string }[]).push({
          value: o.value,
          entity: o.entity,
        });
    }
  }
  if (held.length > 0) {
    const outcome = gather(plan, held);
    for (const t of outcome.top) perRecord[t.place]?.push({ value: t.value, entity: t.entity });
    for (const o of outcome.orphans) {
      issues.push({
        record: o.place,
        field: sourceEntity,
        target: o.output,
        code: "orphan_record",
        severity: "error",
        message: `${o.output} was to be gathered into a record with key ${JSON.stringify(o.into?.key)}, which no record of this call produced; it was not written`,
      });
    }
  }
  let produced = 0;
  const results: BatchResult["results"] = [];
  const entities: NonNullable<BatchResult["entities"]> = [];
  for (const outs of perRecord) {
    produced += outs.length;
    if (outs.length === 0) {
      results.push(null);
      entities.push(null);
    } else if (outs.length === 1) {
      results.push((outs[0] as { value: TargetRecord }).value);
      entities.push((outs[0] as { entity: string }).entity);
    } else {
      results.push(outs.map((o) => o.value));
      entities.push(outs.map((o) => o.entity));
    }
  }
  return { results, issues, targetEntity: mapper.targetEntity, entities, produced };
}
