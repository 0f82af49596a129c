// Test support: every record a mapper makes of one source record (the crossmap language's outputs: routing,
// fan-out), as entity + value pairs, for mappers with one output and with several alike.
import type { MappingIssue, Position, RecordMapper, SourceRecord } from "../../src/crossmap/types.js";

export interface Made {
  entity: string;
  value: Record<string, unknown>;
}

export function mapAll(
  mapper: RecordMapper,
  record: SourceRecord,
  position?: Position,
): { outputs: Made[]; issues: readonly MappingIssue[] } {
  if (mapper.mapAll) {
    const r = mapper.mapAll(record, position);
    return { outputs: r.outputs.map((o) => ({ entity: o.entity, value: o.value })), issues: r.issues };
  }
  const r = mapper.map(record, position);
  return { outputs: [{ entity: mapper.targetEntity, value: r.value }], issues: r.issues };
}
