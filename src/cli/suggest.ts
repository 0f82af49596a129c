// `crossmap suggest <inputs...> --from S --vocab DIR`: the distinct source terms of a standard's records
// (where they are is data: crossmaps/standards/source-terms/) or of a site's term list (--csv), each
// with its ranked candidate concepts (src/vocab/suggest.ts), written as NDJSON, a Usagi CSV, and/or pushed
// to a project as concept items awaiting review (decided items are never touched). With --schema, the
// source tables' columns instead, ranked against a target standard's columns (suggest-schema.ts).
import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { AppError } from "../errors.js";
import { TermCollector } from "../pipeline/terms/collect.js";
import { loadTermDeclaration } from "../pipeline/terms/declaration.js";
import { ndjsonLine, pushItem, type RankedTerm, usagiCsv } from "../pipeline/terms/output.js";
import { expandInputs, readTermList, readTerms, type TermInputFormat } from "../pipeline/terms/read.js";
import { openVocabulary } from "../vocab/lmdb-bridge.js";
import { DEFAULT_CANDIDATES, MAX_CANDIDATES } from "../vocab/suggest.js";
import { loadAbbreviations } from "../vocab/suggest-table.js";
import { vocabularyForSystem } from "../vocab/systems.js";
import { printJson, requireProject, withDataDir, withStores } from "./data-dir.js";
import { standardOption } from "./standard-arg.js";
import { schemaPushItem, suggestSchema, writeSchemaOut } from "./suggest-schema.js";

interface SuggestFlags {
  from?: string;
  vocab?: string;
  schema?: boolean;
  to?: string;
  schemaWords?: string;
  schemaTypes?: string;
  csv?: string;
  descriptionColumn?: string;
  codeColumn?: string;
  frequencyColumn?: string;
  sourceVocabulary?: string;
  terms?: string;
  format?: TermInputFormat;
  entity?: string;
  candidates: string;
  domain?: string[];
  vocabulary?: string[];
  nonStandard?: boolean;
  abbreviations?: string;
  out?: string;
  usagi?: string;
  project?: string;
  server?: string;
  dataDir: string;
  init?: boolean;
}

const list = (v: string, prev: string[] = []) => [...prev, ...v.split(",").filter((s) => s !== "")];

export function registerSuggest(program: Command): void {
  withDataDir(
    program
      .command("suggest [inputs...]")
      .description("rank candidate concepts for the distinct source terms of records or of a term list")
      .option("--vocab <dir>", "vocabulary index built by `crossmap vocab build` (not with --schema)")
      .addOption(standardOption("--from <standard>", "the standard of the inputs"))
      .option("--schema", "rank target table.column candidates for the inputs' columns instead of terms")
      .addOption(standardOption("--to <standard>", "with --schema: the standard whose columns are ranked"))
      .option(
        "--schema-words <file>",
        "with --schema: name words (default: crossmaps/suggest/schema-words.tsv)",
      )
      .option(
        "--schema-types <file>",
        "with --schema: value fits (default: crossmaps/suggest/schema-types.yaml)",
      )
      .option("--csv <file>", "a site's term list (CSV with a header) instead of records")
      .option("--description-column <name>", "with --csv: the column of the term's text")
      .option("--code-column <name>", "with --csv: the column of the term's code")
      .option("--frequency-column <name>", "with --csv: the column of how often it occurs")
      .option("--source-vocabulary <id>", "with --csv: the code system (vocabulary_id) of every code")
      .option("--terms <file>", "where the standard's records hold terms (default: the built-in declaration)")
      .option("--format <format>", "the input form of every file: csv, json, hl7v2 (default: by extension)")
      .option("--entity <name>", "the entity of every record (default: file name, resourceType, segment)")
      .option("--candidates <n>", `candidates per term (1-${MAX_CANDIDATES})`, String(DEFAULT_CANDIDATES))
      .option("--domain <ids>", "only concepts of these domain_ids (comma-separated; repeatable)", list)
      .option(
        "--vocabulary <ids>",
        "only concepts of these vocabulary_ids (comma-separated; repeatable)",
        list,
      )
      .option("--non-standard", "also non-standard and invalid concepts")
      .option("--abbreviations <file>", "abbreviation table (default: crossmaps/suggest/abbreviations.tsv)")
      .option("--out <file>", "write the terms and their candidates as NDJSON")
      .option("--usagi <file>", "write a Usagi CSV (one row per term, its best candidate UNCHECKED)")
      .option("--project <id>", "push the terms as concept items to this project (local --data-dir)")
      .option("--server <url>", "with --project: push to a running server (key from CROSSMAP_API_KEY)"),
  ).action(async (inputs: string[], flags: SuggestFlags) => {
    const limit = Number(flags.candidates);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CANDIDATES) {
      throw new AppError(400, "usage", `--candidates must be a whole number from 1 to ${MAX_CANDIDATES}`);
    }
    if (flags.schema) return schemaAction(inputs, flags, limit);
    if (!flags.vocab) throw new AppError(400, "usage", "give --vocab DIR, the index to rank concepts from");
    if (!flags.out && !flags.usagi && !flags.project) {
      throw new AppError(
        400,
        "usage",
        "say where the suggestions go: --out FILE, --usagi FILE and/or --project P",
      );
    }
    if (flags.server && !flags.project) throw new AppError(400, "usage", "--server needs --project");
    const collector = await collect(inputs, flags);
    const table = loadAbbreviations(flags.abbreviations);
    const vocabulary = openVocabulary(flags.vocab);
    const ranked: RankedTerm[] = [];
    try {
      for (const term of collector.terms()) {
        const domains = flags.domain?.length ? flags.domain : term.domains;
        const candidates = vocabulary.suggest(
          {
            code: term.source_code,
            vocabularyId: term.source_vocabulary,
            sourceConceptId: term.source_concept_id,
            description: term.source_description ?? term.source_code,
          },
          { limit, domains, vocabularies: flags.vocabulary, standard: flags.nonStandard !== true },
          table,
        );
        ranked.push({ term, candidates });
      }
    } finally {
      await vocabulary.close();
    }
    if (flags.out) await writeFile(flags.out, ranked.map(ndjsonLine).join(""));
    if (flags.usagi) await writeFile(flags.usagi, usagiCsv(ranked));
    const pushed = flags.project ? await push(flags, "concept", ranked.map(pushItem)) : undefined;
    printJson({
      terms: ranked.length,
      with_candidates: ranked.filter((r) => r.candidates.length > 0).length,
      records: Object.fromEntries(collector.records),
      ...(collector.dropped > 0 ? { terms_left_out: collector.dropped } : {}),
      ...(pushed ? { pushed } : {}),
    });
  });
}

/** Reports a record's problem on stderr with its file and line; an error makes the exit code 1. */
function problemReporter() {
  const state = { failed: false };
  const problem = (p: { file: string; line?: number; entry?: number; severity: string; message: string }) => {
    const at = p.line !== undefined ? `:${p.line}` : p.entry !== undefined ? ` entry ${p.entry}` : "";
    process.stderr.write(`${p.file}${at}: ${p.severity === "warning" ? "warning: " : ""}${p.message}\n`);
    if (p.severity === "error") state.failed = true;
  };
  return { problem, state };
}

/** `--schema`: the inputs' columns, each with its ranked target columns, to NDJSON and/or a project. */
async function schemaAction(inputs: string[], flags: SuggestFlags, limit: number): Promise<void> {
  if (flags.usagi || flags.csv) {
    throw new AppError(
      400,
      "usage",
      "--schema takes source tables as input files, and writes --out or --project",
    );
  }
  if (!flags.out && !flags.project) {
    throw new AppError(400, "usage", "say where the suggestions go: --out FILE and/or --project P");
  }
  if (flags.server && !flags.project) throw new AppError(400, "usage", "--server needs --project");
  const { problem, state } = problemReporter();
  const { ranked, tables } = await suggestSchema(inputs, flags, limit, problem);
  if (state.failed) process.exitCode = 1;
  if (flags.out) await writeSchemaOut(flags.out, ranked);
  const pushed = flags.project ? await push(flags, "schema", ranked.map(schemaPushItem)) : undefined;
  printJson({
    columns: ranked.length,
    with_candidates: ranked.filter((r) => r.candidates.length > 0).length,
    records: tables,
    ...(pushed ? { pushed } : {}),
  });
}

async function collect(inputs: string[], flags: SuggestFlags): Promise<TermCollector> {
  const { problem, state } = problemReporter();
  let collector: TermCollector;
  if (flags.csv) {
    if (inputs.length > 0)
      throw new AppError(400, "usage", "give either --csv FILE or input files, not both");
    if (!flags.descriptionColumn) throw new AppError(400, "usage", "--csv needs --description-column NAME");
    collector = new TermCollector(
      { standard: "terms", terms: [{ entity: "terms", code: "code" }], file: flags.csv },
      vocabularyForSystem,
    );
    await readTermList(
      flags.csv,
      {
        description: flags.descriptionColumn,
        code: flags.codeColumn,
        frequency: flags.frequencyColumn,
        system: flags.sourceVocabulary,
        domains: undefined,
      },
      collector,
      { problem },
    );
  } else {
    if (!flags.from)
      throw new AppError(400, "usage", "give --from STANDARD with input files (or --csv FILE)");
    if (inputs.length === 0) throw new AppError(400, "usage", "no input files (or give --csv FILE)");
    collector = new TermCollector(loadTermDeclaration(flags.from, flags.terms), vocabularyForSystem);
    const files = await expandInputs(inputs, flags.format);
    await readTerms(files, collector, { format: flags.format, entity: flags.entity, problem });
  }
  if (state.failed) process.exitCode = 1;
  return collector;
}

type PushItems = ReturnType<typeof pushItem>[] | ReturnType<typeof schemaPushItem>[];

/** Pushes concept (or schema) items; items a reviewer decided are skipped by the push itself. */
async function push(flags: SuggestFlags, kind: "concept" | "schema", items: PushItems): Promise<object> {
  if (!flags.server) {
    const { conceptFields, pushItems, schemaFields } = await import("../server/handlers/sync.js");
    return withStores(flags, async (stores) => {
      requireProject(stores, flags.project!, flags.dataDir);
      const common = { projectId: flags.project!, force: false, keyId: null, reviewer: null };
      const s =
        kind === "concept"
          ? await pushItems(stores, stores.conceptItems, "concept", {
              ...common,
              items: (items as ReturnType<typeof pushItem>[]).map((i) => ({ fields: conceptFields(i) })),
            })
          : await pushItems(stores, stores.schemaItems, "schema", {
              ...common,
              items: (items as ReturnType<typeof schemaPushItem>[]).map((i) => ({ fields: schemaFields(i) })),
            });
      return { created: s.created, updated: s.updated, unchanged: s.unchanged, skipped: s.skipped };
    });
  }
  const key = process.env.CROSSMAP_API_KEY;
  if (!key)
    throw new AppError(
      400,
      "usage",
      "--server needs the API key in the CROSSMAP_API_KEY environment variable",
    );
  const url = `${flags.server.replace(/\/$/, "")}/api/v1/sync/projects/${encodeURIComponent(flags.project!)}/${kind}-mappings/bulk`;
  const total = { created: 0, updated: 0, unchanged: 0, skipped: 0 };
  for (let i = 0; i < items.length; i += 1000) {
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ items: items.slice(i, i + 1000) }),
      });
    } catch (err) {
      throw new AppError(400, "unreachable", `cannot reach ${flags.server}: ${(err as Error).message}`);
    }
    const body = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (!res.ok) {
      const detail = body?.detail;
      const text = typeof detail === "string" ? detail : JSON.stringify(detail ?? res.statusText);
      throw new AppError(
        res.status >= 500 ? 500 : 400,
        "server_error",
        `the server answered ${res.status}: ${text}`,
      );
    }
    for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += Number(body?.[k] ?? 0);
  }
  return total;
}
