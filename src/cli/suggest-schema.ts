// `crossmap suggest --schema <inputs...> --to T`: for each column of the source tables (CSV files with a
// header, FHIR resources, HL7 v2 segments, read as `crossmap suggest` reads them), the target standard's
// table.column candidates ranked by name, table and values (src/pipeline/schema/), written as NDJSON and/or
// pushed to a project as schema items awaiting review (decided items are never touched).
import { writeFile } from "node:fs/promises";
import { AppError } from "../errors.js";
import { type ColumnProfile, ColumnProfiler } from "../pipeline/schema/profile.js";
import { type SchemaCandidate, SchemaRanker } from "../pipeline/schema/rank.js";
import {
  loadFitRules,
  loadSchemaWords,
  loadTargetNames,
  sourceAliases,
  targetColumns,
} from "../pipeline/schema/rules.js";
import { expandInputs, readTerms, type TermInputFormat, type TermProblem } from "../pipeline/terms/read.js";

export interface SchemaSuggestFlags {
  from?: string;
  to?: string;
  format?: TermInputFormat;
  entity?: string;
  schemaWords?: string;
  schemaTypes?: string;
}

export interface RankedColumn {
  profile: ColumnProfile;
  candidates: SchemaCandidate[];
}

/** Profiles the inputs' columns and ranks the target's columns for each. */
export async function suggestSchema(
  inputs: string[],
  flags: SchemaSuggestFlags,
  limit: number,
  problem: (p: TermProblem) => void,
): Promise<{ ranked: RankedColumn[]; tables: Record<string, number> }> {
  if (!flags.to) throw new AppError(400, "usage", "--schema needs --to STANDARD, the target of the columns");
  if (inputs.length === 0)
    throw new AppError(400, "usage", "--schema needs the source tables as input files");
  const ranker = new SchemaRanker(
    targetColumns(flags.to),
    loadFitRules(flags.to, flags.schemaTypes),
    loadSchemaWords(flags.schemaWords),
    sourceAliases(flags.from),
    loadTargetNames(flags.to, flags.schemaTypes),
  );
  const profiler = new ColumnProfiler();
  const files = await expandInputs(inputs, flags.format);
  await readTerms(files, profiler, { format: flags.format, entity: flags.entity, problem });
  const profiles = profiler.profiles();
  const tables: Record<string, number> = {};
  for (const p of profiles) tables[p.table] = p.records;
  return {
    ranked: profiles.map((profile) => ({ profile, candidates: ranker.rank(profile, limit) })),
    tables,
  };
}

/** One NDJSON line: the source column, what its values look like, and its candidates, best first. */
export const schemaLine = ({ profile: p, candidates }: RankedColumn): string =>
  `${JSON.stringify({
    source_table: p.table,
    source_column: p.column,
    kind: p.kind,
    records: p.records,
    filled: p.filled,
    samples: p.samples,
    candidates,
  })}\n`;

/** A schema item for the sync push: the best candidate is the suggestion, awaiting review. */
export const schemaPushItem = ({ profile: p, candidates }: RankedColumn) => ({
  source_table: p.table,
  source_column: p.column,
  target_table: candidates[0]?.target_table ?? null,
  target_column: candidates[0]?.target_column ?? null,
  confidence: candidates[0]?.score ?? null,
  status: "needs_review" as const,
  candidates,
});

export async function writeSchemaOut(file: string, ranked: readonly RankedColumn[]): Promise<void> {
  await writeFile(file, ranked.map(schemaLine).join(""));
}
