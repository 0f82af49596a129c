// Maps an in-memory batch of records with one compiled mapper, keeping input order and reporting issues
// per record (the record's index in the batch is its position).
import type { Crossmap } from "./crossmap.js";
import type { MappingIssue, SourceRecord, TargetRecord } from "./types.js";

export interface BatchResult {
  results: TargetRecord[];
  issues: MappingIssue[];
  targetEntity: string;
}

export function mapBatch(
  crossmap: Crossmap,
  sourceEntity: string,
  records: readonly SourceRecord[],
): BatchResult {
  const mapper = crossmap.mapper(sourceEntity);
  const results: TargetRecord[] = new Array(records.length);
  const issues: MappingIssue[] = [];
  for (let i = 0; i < records.length; i++) {
    const r = mapper.map(records[i] as SourceRecord, i);
    results[i] = r.value;
    for (const issue of r.issues) issues.push(issue);
  }
  return { results, issues, targetEntity: mapper.targetEntity };
}
