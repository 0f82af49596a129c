// `crossmap vocab build|lookup|crosswalk|search|stats`: thin commands over src/vocab; every answer is JSON, NDJSON
// or CSV on stdout so scripts can consume it, and every complaint goes to stderr.
import type { Command } from "commander";
import { suggest } from "../crossmap/problems.js";
import { AppError, formatProblem } from "../errors.js";
import type { Concept } from "../vocab/bridge.js";
import { type BuildProgress, buildVocabulary } from "../vocab/build.js";
import { DIFF_COLUMNS, diffCsvFields, diffVocabularies } from "../vocab/diff.js";
import { type CrosswalkRow, type LmdbVocabularyBridge, openVocabulary } from "../vocab/lmdb-bridge.js";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../vocab/search.js";

const list = (v: string) =>
  v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
const collect = (v: string, prev: string[] = []) => [...prev, v];

export function registerVocab(program: Command): void {
  const vocab = program.command("vocab").description("Build and query the OMOP vocabulary index (LMDB).");

  vocab
    .command("build <athena-dir>")
    .description("Build an index from Athena CONCEPT.csv / CONCEPT_RELATIONSHIP.csv (TAB or comma form).")
    .requiredOption("--out <index-dir>", "index directory to create or replace")
    .option("--vocabularies <ids>", "keep only these vocabulary_ids, comma-separated", list)
    .option("-q, --quiet", "no progress bar")
    .action(async (athenaDir: string, o: { out: string; vocabularies?: string[]; quiet?: boolean }) => {
      const bar = !o.quiet && process.stderr.isTTY ? progressBar() : undefined;
      const report = await buildVocabulary({
        sourceDir: athenaDir,
        outDir: o.out,
        ...(o.vocabularies ? { vocabularies: o.vocabularies } : {}),
        ...(bar ? { onProgress: bar.update } : {}),
      }).finally(() => bar?.done());
      for (const p of report.problems) process.stderr.write(`crossmap: ${formatProblem(p)}\n`);
      if (report.malformedRows > report.problems.length) {
        process.stderr.write(
          `crossmap: ... ${report.malformedRows - report.problems.length} more malformed rows\n`,
        );
      }
      const { info } = report;
      // Outside --vocabularies, a relationship to a concept left out is what was asked for.
      const missing = report.missingConcepts;
      if (missing && !o.vocabularies) {
        const { c1, relationship, c2 } = missing.example;
        process.stderr.write(
          `crossmap: warning: ${missing.count} of the ${missing.rows} relationships of ${missing.file} were left ` +
            `out because a concept they name is not in CONCEPT.csv (e.g. ${c1} "${relationship}" ${c2}): ` +
            `mapping cannot follow them\n`,
        );
      }
      writeJson({
        index: report.outDir,
        release: info.release ?? null,
        concepts: info.concepts,
        relationships: info.relationships,
        malformed_rows: report.malformedRows,
        files: info.files,
        build_ms: info.build_ms,
      });
      // Documented outcome: the index is complete with every good row, but the caller must know some were bad.
      if (report.malformedRows > 0) process.exitCode = 1;
    });

  vocab
    .command("lookup [concept_id]")
    .description("Print a concept as JSON, by id or by --code; --to maps it to another vocabulary.")
    .requiredOption("--vocab <index-dir>", "vocabulary index built by `crossmap vocab build`")
    .option("--code <code>", "look up by concept_code (with --vocabulary or --system) instead of id")
    .option("--vocabulary <vocabulary_id>", "vocabulary of --code, e.g. ICD10CM")
    .option("--system <uri>", "FHIR system URI of --code, e.g. http://hl7.org/fhir/sid/icd-10-cm")
    .option("--standard", 'follow "Maps to" to the standard concept')
    .option("--to <vocabulary_id>", "print the related concepts of this vocabulary (a JSON array)")
    .option(
      "--relationship <id>",
      "relationship to follow with --to (repeatable; default Maps to, Mapped from)",
      collect,
    )
    .option("--as <form>", "concept | codeable-concept | dv-coded-text", "concept")
    .action((conceptId: string | undefined, o: LookupOptions) =>
      withBridge(o.vocab, (b) => lookup(b, conceptId, o)),
    );

  vocab
    .command("crosswalk <source-vocabulary> <target-vocabulary>")
    .description("Stream every source concept with its related target concepts, as CSV or NDJSON.")
    .requiredOption("--vocab <index-dir>", "vocabulary index built by `crossmap vocab build`")
    .option("--format <format>", "csv | ndjson", "csv")
    .option(
      "--relationship <id>",
      "relationship to follow (repeatable; default Maps to, Mapped from)",
      collect,
    )
    .action((src: string, tgt: string, o: { vocab: string; format: string; relationship?: string[] }) => {
      if (o.format !== "csv" && o.format !== "ndjson") {
        throw new AppError(
          422,
          "bad_option",
          `--format must be csv or ndjson, not ${JSON.stringify(o.format)}`,
        );
      }
      return withBridge(o.vocab, (b) => {
        requireKnown(b, src, tgt, o.relationship);
        return writeLines(
          crosswalkLines(b.crosswalk(src, tgt, o.relationship), o.format as "csv" | "ndjson"),
        );
      });
    });

  vocab
    .command("search <text...>")
    .description(
      "Find concepts by id, code, name or synonym: exact id or code first, then names that start with " +
        "the text, then names holding every word (the last as a prefix); standard concepts first.",
    )
    .requiredOption("--vocab <index-dir>", "vocabulary index built by `crossmap vocab build`")
    .option("--vocabulary <ids>", "only concepts of these vocabulary_ids, comma-separated", list)
    .option("--domain <ids>", "only concepts of these domain_ids, comma-separated", list)
    .option("--standard", "only standard concepts")
    .option("--limit <n>", `at most this many concepts (1-${MAX_LIMIT})`, String(DEFAULT_LIMIT))
    .action((words: string[], o: SearchCliOptions) => {
      const limit = Number(o.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
        throw new AppError(
          422,
          "bad_option",
          `--limit must be an integer from 1 to ${MAX_LIMIT}, not ${o.limit}`,
        );
      }
      return withBridge(o.vocab, (b) => {
        const result = b.search(words.join(" "), {
          limit,
          ...(o.vocabulary ? { vocabularies: o.vocabulary } : {}),
          ...(o.domain ? { domains: o.domain } : {}),
          ...(o.standard ? { standard: true } : {}),
        });
        writeJson(result);
        // as grep: the answer is printed either way, and the exit code says whether anything matched
        if (result.concepts.length === 0) process.exitCode = 1;
      });
    });

  vocab
    .command("diff <old-index> <new-index>")
    .description(
      'List the concepts of the old release that the new one removed, invalidated, made non-standard or gave another "Maps to".',
    )
    .option("--format <format>", "csv | ndjson", "csv")
    .action((oldDir: string, newDir: string, o: { format: string }) => {
      if (o.format !== "csv" && o.format !== "ndjson") {
        throw new AppError(
          422,
          "bad_option",
          `--format must be csv or ndjson, not ${JSON.stringify(o.format)}`,
        );
      }
      return withBridge(oldDir, (old) =>
        withBridge(newDir, async (next) => {
          const counts: Record<string, number> = {};
          let rows = 0;
          function* lines(): Generator<string> {
            if (o.format === "csv") yield DIFF_COLUMNS.join(",");
            for (const row of diffVocabularies(old, next)) {
              rows++;
              for (const c of row.changes) counts[c] = (counts[c] ?? 0) + 1;
              yield o.format === "ndjson" ? JSON.stringify(row) : diffCsvFields(row).map(csvField).join(",");
            }
          }
          await writeLines(lines());
          const by = Object.entries(counts)
            .map(([c, n]) => `${c} ${n}`)
            .join(", ");
          process.stderr.write(
            `crossmap vocab diff: ${rows} concepts changed${by ? ` (${by})` : ""} from ${old.release ?? "an unnamed release"} to ${next.release ?? "an unnamed release"}\n`,
          );
        }),
      );
    });

  vocab
    .command("stats")
    .description("Print the index metadata and counts as JSON.")
    .requiredOption("--vocab <index-dir>", "vocabulary index built by `crossmap vocab build`")
    .action((o: { vocab: string }) => withBridge(o.vocab, (b) => writeJson(b.stats())));
}

interface SearchCliOptions {
  vocab: string;
  vocabulary?: string[];
  domain?: string[];
  standard?: boolean;
  limit: string;
}

interface LookupOptions {
  vocab: string;
  code?: string;
  vocabulary?: string;
  system?: string;
  standard?: boolean;
  to?: string;
  relationship?: string[];
  as: string;
}

function lookup(b: LmdbVocabularyBridge, conceptId: string | undefined, o: LookupOptions): void {
  const forms = ["concept", "codeable-concept", "dv-coded-text"];
  if (!forms.includes(o.as)) throw new AppError(422, "bad_option", `--as must be one of ${forms.join(", ")}`);
  let concept: Concept | undefined;
  let asked: string;
  if (o.code !== undefined) {
    const vocabularyId = o.vocabulary ?? (o.system ? b.vocabularyForSystem(o.system) : undefined);
    if (!vocabularyId) {
      throw new AppError(
        422,
        "bad_option",
        o.system ? `unknown system ${o.system}` : "--code needs --vocabulary or --system",
      );
    }
    asked = `${vocabularyId} code ${JSON.stringify(o.code)}`;
    concept = o.standard ? b.standardConcept(vocabularyId, o.code) : b.lookupCode(vocabularyId, o.code);
  } else {
    if (conceptId === undefined || !/^\d+$/.test(conceptId)) {
      throw new AppError(422, "bad_argument", "give a numeric concept_id, or --code with --vocabulary");
    }
    asked = `concept ${conceptId}`;
    concept = b.getConcept(Number(conceptId));
    if (concept && o.standard && concept.standard_concept !== "S") {
      concept = b
        .mapConcept(concept.concept_id, { relationships: ["Maps to"] })
        .find((c) => c.standard_concept === "S");
    }
  }
  if (!concept) {
    notFound(`${asked} not found in ${b.dir}`);
    return;
  }
  if (o.to) {
    const mapped = b.mapConcept(concept.concept_id, {
      targetVocabulary: o.to,
      ...(o.relationship ? { relationships: o.relationship } : {}),
    });
    writeJson(mapped.map((c) => render(b, c, o.as)));
  } else {
    writeJson(render(b, concept, o.as));
  }
}

function render(b: LmdbVocabularyBridge, c: Concept, as: string): unknown {
  if (as === "codeable-concept") return b.toCodeableConcept(c.concept_id);
  if (as === "dv-coded-text") return b.toDvCodedText(c.concept_id);
  return c;
}

function notFound(message: string): void {
  process.stderr.write(`crossmap: ${message}\n`);
  process.exitCode = 1;
}

/**
 * A vocabulary or relationship the index does not hold would give an empty crosswalk that looks like an
 * answer; it is a usage error naming what the index holds instead.
 */
function requireKnown(b: LmdbVocabularyBridge, src: string, tgt: string, relationships?: string[]): void {
  const stats = b.stats();
  const vocabularies = Object.keys(stats.vocabularies);
  for (const v of new Set([src, tgt])) {
    if (!vocabularies.includes(v)) {
      throw new AppError(
        400,
        "unknown_vocabulary",
        `the index has no vocabulary "${v}"${suggest(v, vocabularies)}; it holds: ${vocabularies.join(", ")}`,
      );
    }
  }
  for (const r of relationships ?? []) {
    if (!stats.relationship_ids.includes(r)) {
      throw new AppError(
        400,
        "unknown_relationship",
        `the index has no relationship "${r}"${suggest(r, stats.relationship_ids)}; it holds: ${stats.relationship_ids.join(", ")}`,
      );
    }
  }
}

async function withBridge(dir: string, use: (b: LmdbVocabularyBridge) => unknown): Promise<void> {
  const bridge = openVocabulary(dir);
  try {
    await use(bridge);
  } finally {
    await bridge.close();
  }
}

const CSV_HEADER = [
  "source_concept_id",
  "source_vocabulary_id",
  "source_code",
  "source_name",
  "relationship_id",
  "target_concept_id",
  "target_vocabulary_id",
  "target_code",
  "target_name",
];

const csvField = (v: string | number): string => {
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

function* crosswalkLines(rows: Iterable<CrosswalkRow>, format: "csv" | "ndjson"): Generator<string> {
  if (format === "csv") yield CSV_HEADER.join(",");
  for (const { source: s, relationship, target: t } of rows) {
    if (format === "ndjson") {
      yield JSON.stringify({ source: s, relationship_id: relationship, target: t });
    } else {
      yield [
        s.concept_id,
        s.vocabulary_id,
        s.concept_code,
        s.concept_name,
        relationship,
        t.concept_id,
        t.vocabulary_id,
        t.concept_code,
        t.concept_name,
      ]
        .map(csvField)
        .join(",");
    }
  }
}

/** Writes lines to stdout with backpressure; a closed pipe (`| head`) ends the output quietly. */
async function writeLines(lines: Iterable<string>): Promise<void> {
  let closed = false;
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") closed = true;
    else throw err;
  });
  let batch = "";
  for (const line of lines) {
    if (closed) return;
    batch += `${line}\n`;
    if (batch.length >= 1 << 16) {
      const ok = process.stdout.write(batch);
      batch = "";
      if (!ok) await new Promise<void>((resolve) => process.stdout.once("drain", resolve));
    }
  }
  if (batch && !closed) process.stdout.write(batch);
}

function writeJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * A one-line progress bar on stderr, redrawn at most every 100 ms; only used on a terminal. Concepts and
 * relationships are read at the same time, so it shows the bytes of both files together.
 */
function progressBar(): { update: (p: BuildProgress) => void; done: () => void } {
  let last = 0;
  const files = new Map<string, { read: number; total: number }>();
  return {
    update(p) {
      if (p.phase === "writing") {
        process.stderr.write(`\r${"writing the index...".padEnd(60)}`);
        return;
      }
      files.set(p.file, { read: p.bytesRead, total: p.totalBytes });
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      let read = 0;
      let total = 0;
      for (const f of files.values()) {
        read += f.read;
        total += f.total;
      }
      const frac = total > 0 ? Math.min(1, read / total) : 1;
      const width = 30;
      const filled = Math.round(frac * width);
      process.stderr.write(
        `\rreading [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${(frac * 100).toFixed(0).padStart(3)}% ${(read / 1e6).toFixed(0)}/${(total / 1e6).toFixed(0)} MB`,
      );
    },
    done() {
      process.stderr.write("\n");
    },
  };
}
