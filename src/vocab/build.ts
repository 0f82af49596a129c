// `vocab build`: streams Athena files into a new LMDB index beside the target directory, then renames it
// into place, so a reader sees either the old index or the complete new one, never half of one.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { open } from "lmdb";
import { AppError, type Problem } from "../errors.js";
import { detectForm, readTable, type SourceForm } from "./athena-files.js";
import { CONCEPT_COLUMNS, codeRank, indexColumns, RowFault, readConceptRow } from "./athena-rows.js";
import { buildingDirFor, checkReplaceable, publish, publishTarget } from "./atomic-dir.js";
import { ConceptSorter } from "./concept-runs.js";
import { GroupSorter } from "./group-sorter.js";
import { writeHashTable } from "./hash-table.js";
import { KeptConcepts } from "./kept-concepts.js";
import {
  AREA,
  CODE_SLOT,
  codeKey,
  DATA_FILE,
  DB,
  encodeConcept,
  type FileCounts,
  ID_SLOT,
  type IndexInfo,
  LAYOUT_VERSION,
  mix32,
  requireLittleEndian,
  type SlabCounts,
  slabKey,
  vocabularyOf,
} from "./layout.js";
import {
  type RelationshipPassResult,
  relationshipPass,
  relationshipPassInWorker,
} from "./relationship-pass.js";
import { SearchBuilder } from "./search-build.js";
import { SlabWriter } from "./slabs.js";
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
  /** Slab and hash-table partition sizes (default 64 MB); tests make them small to cover many. */
  slabBytes?: number;
  partitionBytes?: number;
  /** Malformed rows kept in the report; all are counted. */
  maxProblems?: number;
  /**
   * false: leave out the concept search index (the bench's baseline for what it costs to build); the
   * bridge of such an index answers every search with no concepts. Default true.
   */
  search?: boolean;
  onProgress?: (p: BuildProgress) => void;
}

export interface BuildProgress {
  /** "writing": reading is over and the sorted runs are being merged into the index (no byte counts). */
  phase: "concepts" | "relationships" | "synonyms" | "writing";
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
  /**
   * Relationships left out because a concept they name is not in the index, with one of them, when
   * any were: a CONCEPT.csv holding only part of the concepts (e.g. only a site's local ones) keeps
   * mapping from following them, which the caller must hear about.
   */
  missingConcepts?: {
    count: number;
    /** The relationship file and its rows. */
    file: string;
    rows: number;
    example: { c1: number; relationship: string; c2: number };
  };
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
  const synonymFile = findFile(sourceDir, "CONCEPT_SYNONYM.csv");
  const outDir = publishTarget(resolve(options.outDir));
  checkReplaceable(outDir, DATA_FILE);
  requireLittleEndian();

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
  let missingConcepts: BuildReport["missingConcepts"];
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
    const slabs = env.openDB<Buffer, number>({ name: DB.slabs, keyEncoding: "uint32", encoding: "binary" });
    const meta = env.openDB({ name: DB.meta });
    // One synchronous transaction per slab: a slab is up to 64 MB, and its buffer is reused after the put.
    const putSlab = (area: number) => (n: number, value: Buffer | Uint32Array) => {
      const bytes =
        value instanceof Buffer ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      env.transactionSync(() => slabs.putSync(slabKey(area, n), bytes));
    };
    const slabCounts: SlabCounts = {
      concepts: 0,
      relations: 0,
      ids: 0,
      codes: 0,
      terms: 0,
      termIndex: 0,
      postings: 0,
      first: 0,
      columns: 0,
    };

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

    // 1. CONCEPT.csv -> sorted runs by concept_id, each concept with its code key and preference rank
    const conceptCounts = emptyCounts();
    const perVocabulary = new Map<string, number>();
    const sorter = new ConceptSorter(runsDir, options.conceptChunk ?? 500_000);
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
          sorter.add(c.concept_id, encodeConcept(c), codeKey(c.vocabulary_id, c.concept_code), codeRank(c));
          perVocabulary.set(c.vocabulary_id, (perVocabulary.get(c.vocabulary_id) ?? 0) + 1);
        };
      },
      parseError: (line, message) => report(conceptFile, line, new RowFault(undefined, message)),
      progress: progress("concepts", conceptFile),
    });
    phase("concepts parsed");

    // 2. concept records in id order; the kept ids are what relationships may point at.
    const kept = new KeptConcepts();
    const conceptWriter = new SlabWriter("concepts", putSlab(AREA.concepts), options.slabBytes);
    let added = 0;
    for (const n of perVocabulary.values()) added += n;
    const search = options.search === false ? undefined : new SearchBuilder(added);
    for (const e of sorter.byId()) {
      if (kept.lastId === e.id) {
        // The first row of an id wins; the later one is counted, and uncounted from its vocabulary.
        conceptCounts.duplicates++;
        const vocabulary = vocabularyOf(e.value);
        perVocabulary.set(vocabulary, (perVocabulary.get(vocabulary) ?? 1) - 1);
        continue;
      }
      kept.push(e.id, conceptWriter.addConcept(e.id, e.value), e.codeKey, e.rank);
      search?.addConcept(e.value);
    }
    slabCounts.concepts = conceptWriter.finish();
    const keptCount = kept.count;
    conceptCounts.loaded = keptCount;
    phase("concepts written");
    rmSync(runsDir, { recursive: true, force: true });
    const keptIds = kept.idSet();
    // The columns are complete (relationRefs is filled in below): no more reallocation.
    const { ids, conceptRefs, relationRefs, codeKeys } = kept;

    // 3. the codes table: it needs nothing from relationships, so it is written while the worker
    // may still be reading them.
    const tableOptions = options.partitionBytes ? { partitionBytes: options.partitionBytes } : {};
    slabCounts.codes = writeHashTable(
      codeKeys.subarray(0, keptCount),
      CODE_SLOT,
      (i, words, at) => {
        words[at] = codeKeys[i]!;
        words[at + 1] = conceptRefs[i]!;
      },
      putSlab(AREA.codes),
      { ...tableOptions, order: kept.byRank() },
    );
    phase("codes table written");

    // 3b. the concept search (search-build.ts), also before the relationships are needed.
    const synonymCounts =
      search && synonymFile
        ? await search.readSynonyms(synonymFile, keptIds, report, progress("synonyms", synonymFile))
        : undefined;
    const searchOut = search?.write(conceptRefs, kept.ranks, putSlab, options.slabBytes);
    if (searchOut) Object.assign(slabCounts, searchOut.slabs);
    phase("search written");

    // 4. relationship runs (read meanwhile) -> one grouped value per concept_id_1. Relationships to a
    // concept outside the index could never produce a concept: dropped here, where the ids are known.
    const relCounts = emptyCounts();
    let relationshipIds: string[] = [];
    let relationshipCount = 0;
    const relationWriter = new SlabWriter("relations", putSlab(AREA.relations), options.slabBytes);
    let missing = 0;
    let example: { c1: number; relationship: string; c2: number } | undefined;
    if (relPass) {
      const rel = await relPass.result;
      phase("relationships parsed");
      options.onProgress?.({ phase: "writing", file: "", bytesRead: 0, totalBytes: 0 });
      relationshipIds = rel.relationshipIds;
      relCounts.rows = rel.rows;
      relCounts.skipped = rel.invalid;
      relProblems.push(...rel.problems);
      malformedRows += rel.malformed;
      // Each concept_id_2 is stored as its record's ref, so that mapConcept reads answers without
      // a slot lookup each; the ids' positions come from the id set's running counts.
      let row = 0;
      GroupSorter.forEachKeyOfRuns(
        rel.runs,
        (c1, list) => {
          while (ids[row] !== c1) row++; // c1 is a kept id, and both ascend
          relationRefs[row] = relationWriter.addWords(list);
        },
        (c1, rel, c2) => {
          const target = keptIds.indexOf(c2);
          if (target >= 0 && keptIds.has(c1)) {
            relationshipCount++;
            return conceptRefs[target]!;
          }
          relCounts.skipped++;
          missing++;
          example ??= { c1, relationship: relationshipIds[rel] ?? String(rel), c2 };
          return -1;
        },
      );
      relCounts.loaded = relationshipCount;
      relCounts.missing_concept = missing;
      if (example && relationshipFile) {
        missingConcepts = { count: missing, file: basename(relationshipFile), rows: rel.rows, example };
      }
      phase("relationships written");
    }
    slabCounts.relations = relationWriter.finish();

    // 5. the ids table, now that every concept's relations list has its ref
    const idHashes = new Uint32Array(keptCount);
    for (let i = 0; i < keptCount; i++) idHashes[i] = mix32(ids[i]!);
    slabCounts.ids = writeHashTable(
      idHashes,
      ID_SLOT,
      (i, words, at) => {
        words[at] = ids[i]!;
        words[at + 1] = conceptRefs[i]!;
        words[at + 2] = relationRefs[i]!;
      },
      putSlab(AREA.ids),
      tableOptions,
    );
    phase("ids table written");
    relCounts.malformed = relCounts.rows - relCounts.loaded - relCounts.skipped;
    conceptCounts.malformed =
      conceptCounts.rows - conceptCounts.loaded - conceptCounts.skipped - conceptCounts.duplicates;

    // 6. metadata
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
        ...(synonymFile && synonymCounts ? { [basename(synonymFile)]: synonymCounts } : {}),
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
      release: vocabTable.get("None")?.version || null,
      build_ms: 0,
      slabs: slabCounts,
      ...(searchOut ? { search: searchOut.info } : {}),
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
  return {
    outDir,
    info,
    problems: [...problems, ...relProblems].slice(0, maxProblems),
    malformedRows,
    ...(missingConcepts ? { missingConcepts } : {}),
  };
}
