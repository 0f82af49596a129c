// `crossmap roundtrip`: maps every input record there (A: from -> via) and back (B: via -> from) in memory, one
// record at a time, and counts per table how many rows came back in their own table under their own key and
// how many of their values came back identical. Nothing is written; memory does not grow with the input.
import type { Readable } from "node:stream";
import type {
  MappingIssue,
  Position,
  RecordMapper,
  SourceRecord,
  TargetRecord,
} from "../../crossmap/types.js";
import { type InputPlan, readInput } from "../inputs.js";
import { jsonSyntaxMessage, parseJson } from "../json.js";
import { DEFAULT_MAX_RECORD_BYTES } from "../limits.js";
import type { Batch } from "../types.js";
import { type ColumnType, canonical, newTally, type TableTally, tallyRow } from "./compare.js";

/** What the round trip needs of a loaded crossmap. */
export interface RoundtripCrossmap {
  readonly source: string;
  readonly target: string;
  hasEntity(entity: string): boolean;
  mapper(entity: string): RecordMapper;
}

/** The multi-output form of a mapper (crossmap language outputs), when the engine offers it. */
interface MultiMapper {
  mapAll?(
    record: SourceRecord,
    position?: Position,
  ): { outputs: { entity: string; value: TargetRecord }[]; issues: readonly MappingIssue[] };
}

export interface RoundtripOptions {
  there: RoundtripCrossmap;
  back: RoundtripCrossmap;
  inputs: InputPlan[];
  /** The column that identifies a row of a table (OMOP: its primary key; person_id for death). */
  keyOf(table: string): string | undefined;
  typeOf(table: string, column: string): ColumnType;
  stdin: Readable;
}

export interface IssueExample {
  file: string;
  line?: number;
  leg: "there" | "back";
  entity: string;
  field: string;
  code: string;
  severity: "error" | "warning";
  message: string;
}

export interface RoundtripResult {
  tallies: TableTally[];
  /** Issues of either leg by severity and code; the first few as examples. */
  issues: { errors: number; warnings: number; byCode: Map<string, number>; examples: IssueExample[] };
  /** Records the first leg made that the second cannot read: entity -> count. */
  notReadBack: Map<string, number>;
  /** Input records that could not be read or had no table. */
  unreadable: number;
}

const MAX_EXAMPLES = 20;

function outputsOf(
  mapper: RecordMapper,
  record: SourceRecord,
  position: Position,
): { outputs: { entity: string; value: TargetRecord }[]; issues: readonly MappingIssue[] } {
  const multi = mapper as RecordMapper & MultiMapper;
  if (multi.mapAll) return multi.mapAll(record, position);
  const { value, issues } = mapper.map(record, position);
  return { outputs: [{ entity: mapper.targetEntity, value }], issues };
}

async function* recordsOf(
  batch: Batch,
): AsyncGenerator<{ record?: SourceRecord; line?: number; problem?: string }> {
  if (batch.kind === "records") {
    for (const r of batch.records) {
      yield r.problem ? { ...(r.line !== undefined ? { line: r.line } : {}), problem: r.problem } : r;
    }
    return;
  }
  const text = typeof batch.text === "string" ? batch.text : Buffer.from(batch.text).toString("utf8");
  let line = batch.firstLine;
  for (const raw of text.split("\n")) {
    const here = line++;
    const t = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (t.trim() === "") continue;
    try {
      const value = parseJson(here === 1 && t.charCodeAt(0) === 0xfeff ? t.slice(1) : t);
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        yield { line: here, problem: "expected a JSON object" };
      } else yield { record: value as SourceRecord, line: here };
    } catch (err) {
      yield { line: here, problem: `malformed JSON: ${jsonSyntaxMessage(err)}` };
    }
  }
}

export async function runRoundtrip(options: RoundtripOptions): Promise<RoundtripResult> {
  const { there, back } = options;
  const tallies = new Map<string, TableTally>();
  const result: RoundtripResult = {
    tallies: [],
    issues: { errors: 0, warnings: 0, byCode: new Map(), examples: [] },
    notReadBack: new Map(),
    unreadable: 0,
  };
  const note = (
    issues: readonly MappingIssue[],
    file: string,
    line: number | undefined,
    leg: "there" | "back",
    entity: string,
  ) => {
    for (const i of issues) {
      if (i.severity === "error") result.issues.errors++;
      else result.issues.warnings++;
      result.issues.byCode.set(i.code, (result.issues.byCode.get(i.code) ?? 0) + 1);
      if (result.issues.examples.length < MAX_EXAMPLES) {
        result.issues.examples.push({
          file,
          ...(line !== undefined ? { line } : {}),
          leg,
          entity,
          field: i.field,
          code: i.code,
          severity: i.severity,
          message: i.message,
        });
      }
    }
  };
  for (const input of options.inputs) {
    const batches = readInput(input, {
      stdin: options.stdin,
      batchBytes: 1 << 20,
      batchRecords: 2048,
      maxRecordBytes: DEFAULT_MAX_RECORD_BYTES,
      onBytes: () => {},
    });
    for await (const batch of batches) {
      for await (const parsed of recordsOf(batch)) {
        const record = parsed.record;
        const table =
          batch.entity ?? (typeof record?.resourceType === "string" ? record.resourceType : undefined);
        if (!record || table === undefined || !there.hasEntity(table)) {
          result.unreadable++;
          const message = parsed.problem ?? `no mapping for the record's entity ${table ?? "(none)"}`;
          note(
            [{ field: "", target: "", code: "invalid_record", severity: "error", message }],
            input.file,
            parsed.line,
            "there",
            table ?? "",
          );
          continue;
        }
        let tally = tallies.get(table);
        if (!tally) {
          tally = newTally(table);
          tallies.set(table, tally);
        }
        const key = options.keyOf(table);
        const typeOf = (column: string) => options.typeOf(table, column);
        const want = key === undefined ? undefined : canonical(record[key], typeOf(key));
        const position: Position = parsed.line ?? 0;
        const forward = outputsOf(there.mapper(table), record, position);
        note(forward.issues, input.file, parsed.line, "there", table);
        let same: TargetRecord | undefined;
        for (const made of forward.outputs) {
          if (!back.hasEntity(made.entity)) {
            result.notReadBack.set(made.entity, (result.notReadBack.get(made.entity) ?? 0) + 1);
            continue;
          }
          const returned = outputsOf(back.mapper(made.entity), made.value, position);
          note(returned.issues, input.file, parsed.line, "back", made.entity);
          for (const row of returned.outputs) {
            const isSame =
              same === undefined &&
              row.entity === table &&
              want !== undefined &&
              canonical(row.value[key as string], typeOf(key as string)) === want;
            if (isSame) same = row.value;
            else tally.otherRows.set(row.entity, (tally.otherRows.get(row.entity) ?? 0) + 1);
          }
        }
        tallyRow(tally, want ?? `line ${parsed.line ?? "?"}`, record, same, typeOf);
      }
    }
  }
  result.tallies = [...tallies.values()];
  return result;
}
