// `vocab build`: streams Athena files into a new LMDB index beside the target directory, then renames it
// into place, so a reader sees either the old index or the complete new one, never half of one.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { open } from "lmdb";
import { AppError, type Problem } from "../errors.js";
import { detectForm, readTable, type SourceForm } from "./athena-files.js";
import { CONCEPT_COLUMNS, codeRank, indexColumns, RowFault, readConceptRow } from "./athena-rows.js";
import { buildingDirFor, checkReplaceable, publish } from "./atomic-dir.js";
import { CodeSorter } from "./code-runs.js";
import { ConceptSorter } from "./concept-runs.js";
import { GroupSorter } from "./group-sorter.js";
import { IdSet } from "./id-set.js";
import {
  codeHash,
  DATA_FILE,
  DB,
  encodeConcept,
  type FileCounts,
  type IndexInfo,
  LAYOUT_VERSION,
  vocabularyOf,
} from "./layout.js";
import { BatchWriter } from "./lmdb-writer.js";
import {
  type RelationshipPassResult,
  relationshipPass,
  relationshipPassInWorker,
} from "./relationship-pass.js";
import { readVocabularyTable } from "./vocabulary-table.js";

export interface BuildOptions {
  sourceDir: string;
  outDir: string;
  /** Keep only concepts of these vocabulary_ids (and relationships between kept concepts). */
  vocabularies?: string[];
  /** Rows held in memory before a sorted run is spilled to disk (bounds memory). */
  conceptChunk?: number;
  relationshipChunk?: number;
  /** Read CONCEPT_RELATIONSHIP.csv in a worker thread; default: when it is at least 32 MB. */
  relationshipWorker?: boolean;
  /** Malformed rows kept in the report; all are counted. */
  maxProblems?: number;
  onProgress?: (p: BuildProgress) => void;
}

export interface BuildProgress {
  /** "writing": reading is over and the sorted runs are being merged into the index (no byte counts). */
  phase: "concepts" | "relationships" | "writing";
  file: string;
  bytesRead: number;
  totalBytes: number;
}

export interface BuildReport {
  outDir: string;
  info: IndexInfo;
  /** Malformed rows, in file order, at most maxProblems of them. */
  problems: Problem[];
  malformedRows: number;
}

/** Finds `name` in `dir` whatever its case (Athena zips use upper case; some exports use lower case). */
function findFile(dir: string, name: string): string | undefined {
  const hit = readdirSync(dir).find((f) => f.toLowerCase() === name.toLowerCase());
  return hit ? join(dir, hit) : undefined;
}

const debug = process.env.CROSSMAP_DEBUG?.includes("vocab");
let phaseStart = Date.now();
/** Phase timings on stderr with CROSSMAP_DEBUG=vocab: where a slow build spends its time. */
function phase(name: string): void {
  if (debug) process.stderr.write(`vocab build: ${name} in ${Date.now() - phaseStart} ms\n`);
  phaseStart = Date.now();
}

// Below this a worker's start-up costs more than the parallel reading saves.
const WORKER_MIN_BYTES = 32 << 20;

const emptyCounts = (): FileCounts => ({ rows: 0, loaded: 0, malformed: 0, skipped: 0, duplicates: 0 });

export async function buildVocabulary(options: BuildOptions): Promise<BuildReport> {
  const started = Date.now();
  phaseStart = started;
  const sourceDir = options.sourceDir;
  if (!existsSync(sourceDir) || !statSync(sourceDir).isDirectory()) {
    throw new AppError(404, "vocab_source_missing", `${sourceDir} is not a directory`);
  }
  const conceptFile = findFile(sourceDir, "CONCEPT.csv");
  if (!conceptFile) throw new AppError(404, "vocab_source_missing", `${sourceDir} has no CONCEPT.csv`);
  const relationshipFile = findFile(sourceDir, "CONCEPT_RELATIONSHIP.csv");
  const vocabularyFile = findFile(sourceDir, "VOCABULARY.csv");
  const outDir = resolve(options.outDir);
  checkReplaceable(outDir, DATA_FILE);

  const form: SourceForm = detectForm(conceptFile);
  const filter =
    options.vocabularies && options.vocabularies.length > 0 ? new Set(options.vocabularies) : null;
  const maxProblems = options.maxProblems ?? 1000;
  const problems: Problem[] = [];
  let malformedRows = 0;
  const report = (file: string, line: number, fault: RowFault) => {
    malformedRows++;
    if (problems.length < maxProblems) problems.push(fault.toProblem(file, line));
  };

  const building = buildingDirFor(outDir);
  rmSync(building, { recursive: true, force: true });
  const runsDir = join(building, "runs");
  mkdirSync(runsDir, { recursive: true });
  let info: IndexInfo;
  const relProblems: Problem[] = [];
  let relPass: { result: Promise<RelationshipPassResult>; stop: () => Promise<number> } | undefined;
  const progress = (phase: BuildProgress["phase"], file: string) =>
    options.onProgress &&
    ((bytesRead: number, totalBytes: number) => options.onProgress?.({ phase, file, bytesRead, totalBytes }));
  const env = open({
    path: join(building, DATA_FILE),
    noSubdir: true,
    maxDbs: 8,
    noSync: true,
    mapSize: 2 ** 36,
  });
  try {
    // Concepts are written as strings (stored as their UTF-8 bytes) and read back as binary by the bridge.
    const concepts = env.openDB<string, number>({
      name: DB.concepts,
      keyEncoding: "uint32",
      encoding: "string",
    });
    const codes = env.openDB<Buffer, number>({ name: DB.codes, keyEncoding: "uint32", encoding: "binary" });
    const relations = env.openDB<Buffer, number>({
      name: DB.relations,
      keyEncoding: "uint32",
      encoding: "binary",
    });
    const meta = env.openDB({ name: DB.meta });
    const writer = new BatchWriter(env);

    // 0. CONCEPT_RELATIONSHIP.csv, usually the far larger file, is read concurrently (see relationship-pass.ts).
    if (relationshipFile) {
      const relInput = {
        file: relationshipFile,
        runsDir: join(building, "runs-relations"),
        chunk: options.relationshipChunk ?? 4_000_000,
        maxProblems,
      };
      const relProgress = progress("relationships", relationshipFile);
      relPass =
        (options.relationshipWorker ?? statSync(relationshipFile).size >= WORKER_MIN_BYTES)
          ? relationshipPassInWorker(relInput, relProgress)
          : { result: relationshipPass(relInput, relProgress), stop: async () => 0 };
    }
    // A failure elsewhere must not leave this promise's rejection unhandled.
    relPass?.result.catch(() => {});

    // 1. CONCEPT.csv -> sorted runs, by id (concepts) and by code hash (codes)
    const conceptCounts = emptyCounts();
    const perVocabulary = new Map<string, number>();
    const sorter = new ConceptSorter(runsDir, options.conceptChunk ?? 500_000);
    const codeSorter = new CodeSorter(runsDir, options.conceptChunk ?? 500_000);
    conceptCounts.rows = await readTable(conceptFile, form, {
      header(columns) {
        const col = indexColumns(conceptFile, columns, CONCEPT_COLUMNS);
        return (fields, line) => {
          const c = readConceptRow(fields, col);
          if (c instanceof RowFault) return report(conceptFile, line, c);
          if (filter && !filter.has(c.vocabulary_id)) {
            conceptCounts.skipped++;
            return;
          }
          const encoded = encodeConcept(c);
          sorter.add(c.concept_id, encoded);
          codeSorter.add(codeHash(c.vocabulary_id, c.concept_code), codeRank(c), c.concept_id, encoded);
          perVocabulary.set(c.vocabulary_id, (perVocabulary.get(c.vocabulary_id) ?? 0) + 1);
        };
      },
      parseError: (line, message) => report(conceptFile, line, new RowFault(undefined, message)),
      progress: progress("concepts", conceptFile),
    });
    phase("concepts parsed");

    // 2. concepts in id order, then codes in hash order (MDB_APPEND both); the kept ids, sorted, are
    // what relationships may point at.
    let kept = new Uint32Array(1024);
    let keptCount = 0;
    // The winning value of each duplicated concept_id: the losing rows' codes entries are left out.
    const duplicated = new Map<number, string>();
    let lastValue = "";
    for (const e of sorter.byId()) {
      if (keptCount > 0 && kept[keptCount - 1] === e.id) {
        // The first row of an id wins; the later one is counted, and uncounted from its vocabulary.
        duplicated.set(e.id, lastValue);
        conceptCounts.duplicates++;
        const vocabulary = vocabularyOf(e.value);
        perVocabulary.set(vocabulary, (perVocabulary.get(vocabulary) ?? 1) - 1);
        continue;
      }
      if (keptCount === kept.length) {
        const bigger = new Uint32Array(kept.length * 2);
        bigger.set(kept);
        kept = bigger;
      }
      kept[keptCount++] = e.id;
      lastValue = e.value;
      writer.put(concepts, e.id, e.value, true);
    }
    conceptCounts.loaded = keptCount;
    codeSorter.forEachKey(
      (hash, value) => writer.put(codes, hash, value, true),
      (id, value) => {
        const winner = duplicated.get(id);
        return winner === undefined || winner === value;
      },
    );
    writer.flush();
    phase("concepts and codes written");
    rmSync(runsDir, { recursive: true, force: true });
    const keptIds = new IdSet(kept.subarray(0, keptCount));

    // 3. relationship runs (read meanwhile) -> one grouped value per concept_id_1. Relationships to a
    // concept outside the index could never produce a concept: dropped here, where the ids are known.
    const relCounts = emptyCounts();
    let relationshipIds: string[] = [];
    let relationshipCount = 0;
    if (relPass) {
      const rel = await relPass.result;
      phase("relationships parsed");
      options.onProgress?.({ phase: "writing", file: "", bytesRead: 0, totalBytes: 0 });
      relationshipIds = rel.relationshipIds;
      relCounts.rows = rel.rows;
      relCounts.skipped = rel.invalid;
      relProblems.push(...rel.problems);
      malformedRows += rel.malformed;
      GroupSorter.forEachKeyOfRuns(
        rel.runs,
        (c1, value) => writer.put(relations, c1, value, true),
        (c1, _rel, c2) => {
          if (keptIds.has(c1) && keptIds.has(c2)) {
            relationshipCount++;
            return true;
          }
          relCounts.skipped++;
          return false;
        },
      );
      writer.flush();
      relCounts.loaded = relationshipCount;
      phase("relationships written");
    }
    relCounts.malformed = relCounts.rows - relCounts.loaded - relCounts.skipped;
    conceptCounts.malformed =
      conceptCounts.rows - conceptCounts.loaded - conceptCounts.skipped - conceptCounts.duplicates;

    // 4. metadata
    const vocabTable = vocabularyFile ? await readVocabularyTable(vocabularyFile) : new Map();
    info = {
      layout: LAYOUT_VERSION,
      built_at: new Date(started).toISOString(),
      source_dir: resolve(sourceDir),
      source_form: form,
      vocabulary_filter: filter ? [...filter].sort() : null,
      files: {
        [basename(conceptFile)]: conceptCounts,
        ...(relationshipFile ? { [basename(relationshipFile)]: relCounts } : {}),
      },
      concepts: keptCount,
      relationships: relationshipCount,
      relationship_ids: relationshipIds,
      vocabularies: Object.fromEntries(
        [...perVocabulary.entries()]
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([id, n]) => [
            id,
            {
              concepts: n,
              version: vocabTable.get(id)?.version ?? null,
              name: vocabTable.get(id)?.name ?? null,
            },
          ]),
      ),
      build_ms: 0,
    };
    info.build_ms = Date.now() - started;
    await meta.put("info", info);
    await env.close();
  } catch (err) {
    if (relPass) await relPass.stop();
    await env.close();
    rmSync(building, { recursive: true, force: true });
    throw err;
  }
  rmSync(runsDir, { recursive: true, force: true });
  rmSync(join(building, "runs-relations"), { recursive: true, force: true });
  publish(building, outDir);
  return { outDir, info, problems: [...problems, ...relProblems].slice(0, maxProblems), malformedRows };
}
