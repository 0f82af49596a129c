// The VocabularyBridge over a built index: opened read-only and memory-mapped, so opening costs a few
// milliseconds and every worker process shares the same pages. Lookups are synchronous hash-slot reads
// straight from the mapped slabs (layout.ts): no LMDB call once the index is open.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { isMainThread } from "node:worker_threads";
import { open, type RootDatabase } from "lmdb";
import { AppError } from "../errors.js";
import type { CodeableConcept, Concept, DvCodedText, MapConceptOptions, VocabularyBridge } from "./bridge.js";
import { HashTable } from "./hash-table.js";
import {
  AREA,
  type AreaName,
  CODE_SLOT,
  codeKey,
  DATA_FILE,
  DB,
  decodeConcept,
  forEachRelation,
  ID_SLOT,
  type IndexInfo,
  isConceptId,
  LAYOUT_VERSION,
  mix32,
  refSlab,
  refWord,
  requireLittleEndian,
  slabKey,
} from "./layout.js";
import { RecordReader } from "./record-reader.js";
import { ConceptSearch, type SearchOptions, type SearchResult, type SearchSlabs } from "./search.js";
import { readSlab, type Slab } from "./slabs.js";
import { type Candidate, Suggester, type SuggestOptions, type TermQuery } from "./suggest.js";
import { RowTokens } from "./suggest-rows.js";
import type { Abbreviations } from "./suggest-text.js";
import { WordIndex } from "./suggest-words.js";
import { fhirSystemFor, openehrTerminologyFor, vocabularyForSystem } from "./systems.js";

export const DEFAULT_RELATIONSHIPS = ["Maps to", "Mapped from"] as const;

/**
 * How every index is opened. The map size is virtual address space, not memory (LMDB maps the file's size
 * when that is larger). It is the same everywhere because lmdb-js keeps the views it hands out by map
 * address: an index mapped where an earlier, closed one was inherits that one's view, and with a smaller
 * old map a slab beyond its end failed ("Invalid typed array length"). Maps of 8 GB are viewed in whole
 * 4 GB chunks, whatever the file.
 */
export const READ_ONLY_OPTIONS = { noSubdir: true, readOnly: true, maxDbs: 8, mapSize: 2 ** 33 } as const;

export interface CrosswalkRow {
  source: Concept;
  relationship: string;
  target: Concept;
}

export interface VocabularyStats extends IndexInfo {
  index_dir: string;
}

/** A name worth showing: Athena sometimes has none, or the R export's literal "NA". */
export const displayableName = (name: string): string | undefined =>
  name === "" || name === "NA" ? undefined : name;

// What a closed bridge reads: one empty slot, so every lookup answers "not found" and nothing touches the
// memory map that close() released.
const CLOSED_IDS = new HashTable([new Uint32Array(ID_SLOT)], ID_SLOT);
const CLOSED_CODES = new HashTable([new Uint32Array(CODE_SLOT)], CODE_SLOT);

const NO_ABBREVIATIONS = {};
/** The byte that ends a concept record's name (layout.ts encodeConcept's separator). */
const NAME_END = 0x1f;

export class LmdbVocabularyBridge implements VocabularyBridge {
  private concepts: Slab[];
  private relations: Slab[];
  private ids: HashTable;
  private idSlabs: Slab[];
  private codes: HashTable;
  private searcher: ConceptSearch | undefined;
  private searchSlabs: SearchSlabs | undefined;
  private wordIndex: WordIndex | undefined;
  private rowTokens: RowTokens | undefined;
  /** The suggester's record reads, by pread (record-reader.ts); null when the slabs are not mapped. */
  private records: RecordReader | null | undefined;
  private readonly suggesters = new WeakMap<object, Suggester>();
  readonly info: IndexInfo;
  /** Bytes of slabs that lmdb-js copied instead of mapping (small slabs): what opening costs. */
  readonly copiedBytes: number;
  private readonly relIndex: Map<string, number>;
  private readonly defaultWanted: ReadonlySet<number>;
  // mapConcept is called per record with the same few relationship lists: resolve each list once.
  private readonly wantedCache = new Map<string, ReadonlySet<number>>();

  constructor(
    private readonly env: RootDatabase,
    readonly dir: string,
  ) {
    const info = env.openDB<IndexInfo, string>({ name: DB.meta }).get("info");
    if (!info || info.layout !== LAYOUT_VERSION) {
      throw new AppError(
        422,
        "vocab_index_invalid",
        `${dir} is not a vocabulary index of layout ${LAYOUT_VERSION}; rebuild it with \`crossmap vocab build\``,
      );
    }
    requireLittleEndian();
    this.info = info;
    const db = env.openDB<Buffer, number>({ name: DB.slabs, keyEncoding: "uint32", encoding: "binary" });
    const area = (name: AreaName) =>
      Array.from({ length: info.slabs[name] }, (_, n) => readSlab(db, slabKey(AREA[name], n), dir));
    this.concepts = area("concepts");
    this.relations = area("relations");
    const ids = area("ids");
    this.idSlabs = ids;
    const codes = area("codes");
    this.ids = new HashTable(
      ids.map((s) => s.words),
      ID_SLOT,
    );
    this.codes = new HashTable(
      codes.map((s) => s.words),
      CODE_SLOT,
    );
    const search = {
      terms: area("terms"),
      termIndex: area("termIndex"),
      postings: area("postings"),
      first: area("first"),
      columns: area("columns"),
    };
    this.searchSlabs = search;
    this.searcher = info.search
      ? new ConceptSearch(search, info.search, info.concepts, {
          conceptAt: (ref) => this.conceptAt(ref),
          idRef: (id) => {
            const at = isConceptId(id) ? this.idSlot(id) : -1;
            return at < 0 ? 0 : this.ids.words[at + 1]!;
          },
          codeRef: (vocabularyId, code) => this.codeRef(vocabularyId, code),
          vocabularyIds: Object.keys(info.vocabularies),
        })
      : undefined;
    this.copiedBytes = [
      ...this.concepts,
      ...this.relations,
      ...ids,
      ...codes,
      ...Object.values(search).flat(),
    ]
      .filter((s) => !s.mapped)
      .reduce((n, s) => n + s.bytes.length, 0);
    this.relIndex = new Map(info.relationship_ids.map((r, i) => [r, i]));
    this.defaultWanted = this.wanted(DEFAULT_RELATIONSHIPS);
  }

  /** The concept record at `ref` (layout.makeRef). */
  private conceptAt(ref: number): Concept {
    const slab = this.concepts[refSlab(ref)]!;
    const word = refWord(ref);
    const start = word * 4 + 8;
    return decodeConcept(slab.words[word]!, slab.bytes, start, start + slab.words[word + 1]!);
  }

  /** The id and name of the concept record at `ref`: the record's first field, up to its separator. */
  private nameAt(ref: number): { id: number; name: string } {
    const slab = this.concepts[refSlab(ref)]!;
    const word = refWord(ref);
    const start = word * 4 + 8;
    const end = slab.bytes.indexOf(NAME_END, start);
    return { id: slab.words[word]!, name: slab.bytes.toString("utf8", start, end) };
  }

  /**
   * The word index of concept `id`'s slot in `this.ids.words`, or -1. (`!ref`, not `ref === 0`, in
   * the probe loops: a view that lmdb-js had detached would read undefined, and must end the probe.)
   */
  private idSlot(id: number): number {
    const t = this.ids;
    for (let at = t.start(mix32(id)); ; at = t.next(at)) {
      const words = t.words;
      if (!words[at + 1]) return -1;
      if (words[at] === id) return at;
    }
  }

  getConcept(conceptId: number): Concept | undefined {
    if (!isConceptId(conceptId)) return undefined;
    const at = this.idSlot(conceptId);
    return at < 0 ? undefined : this.conceptAt(this.ids.words[at + 1]!);
  }

  lookupCode(vocabularyId: string, code: string): Concept | undefined {
    const ref = this.codeRef(vocabularyId, code);
    return ref === 0 ? undefined : this.conceptAt(ref);
  }

  /** The record ref of the preferred concept with this vocabulary and code, or 0. */
  private codeRef(vocabularyId: string, code: string): number {
    if (typeof vocabularyId !== "string" || typeof code !== "string" || vocabularyId === "" || code === "") {
      return 0;
    }
    // Concepts with this key come along the probe sequence in preference order (standard, classification,
    // valid, invalid); the first whose vocabulary and code match is the answer.
    const key = codeKey(vocabularyId, code);
    const t = this.codes;
    for (let at = t.start(key); ; at = t.next(at)) {
      const words = t.words;
      const ref = words[at + 1];
      if (!ref) return 0;
      if (words[at] === key) {
        const c = this.conceptAt(ref);
        if (c.concept_code === code && c.vocabulary_id === vocabularyId) return ref;
      }
    }
  }

  /**
   * Concepts for a text, ranked: exact id or code, then names that start with the text, then names or
   * synonyms holding every word of it (search.ts). Case- and accent-insensitive.
   */
  search(text: string, options?: SearchOptions): SearchResult {
    return this.searcher
      ? this.searcher.search(text, options)
      : { concepts: [], total: 0, total_relation: "eq" };
  }

  /**
   * Ranked candidate concepts for a source term (suggest.ts): its code's concept or the standard concept
   * that "Maps to" it first, then concepts whose names resemble its description. The first call builds
   * the word index (a second or two for a full Athena vocabulary); an index without the search has none.
   */
  suggest(term: TermQuery, options?: SuggestOptions, abbreviations?: Abbreviations): Candidate[] {
    return this.suggester(abbreviations)?.suggest(term, options) ?? [];
  }

  /** The suggester for an abbreviation table (one per table, sharing the word index). */
  suggester(abbreviations?: Abbreviations): Suggester | undefined {
    const info = this.info.search;
    if (!info || !this.searchSlabs || this.concepts.length === 0) return undefined;
    const key = abbreviations ?? NO_ABBREVIATIONS;
    let s = this.suggesters.get(key);
    if (!s) {
      this.wordIndex ??= new WordIndex(this.searchSlabs, info, this.info.concepts);
      this.rowTokens ??= new RowTokens(this.wordIndex, this.searchSlabs.columns, info, this.info.concepts);
      if (this.records === undefined) {
        const areas = { concepts: this.concepts, relations: this.relations, ids: this.idSlabs };
        this.records = RecordReader.open(join(this.dir, DATA_FILE), areas) ?? null;
      }
      const mapsTo = this.wanted(["Maps to"]);
      s = new Suggester(
        this.wordIndex,
        this.rowTokens,
        this.searchSlabs.columns,
        info,
        {
          // The records of the concepts it ranks are read by pread when it can: see record-reader.ts.
          conceptAt: (ref) => (this.records ? this.records.conceptAt(ref) : this.conceptAt(ref)),
          nameAt: (ref) => (this.records ? this.records.nameAt(ref) : this.nameAt(ref)),
          getConcept: (id) => this.getConcept(id),
          lookupCode: (v, c) => this.lookupCode(v, c),
          mapsTo: (id) => {
            const r = this.records;
            if (!r) return this.mapConcept(id, { relationships: ["Maps to"] });
            return isConceptId(id) ? r.relatedRefs(id, mapsTo).map((ref) => r.conceptAt(ref)) : [];
          },
        },
        abbreviations,
      );
      this.suggesters.set(key, s);
    }
    return s;
  }

  /** Calls `visit` with the concept ref of each relation of `conceptId` in the `wanted` groups. */
  private forEachRelated(
    conceptId: number,
    wanted: ReadonlySet<number> | null,
    visit: (ref: number, group: number) => void,
  ): void {
    const at = this.idSlot(conceptId);
    const ref = at < 0 ? 0 : this.ids.words[at + 2]!;
    if (ref === 0) return;
    forEachRelation(this.relations[refSlab(ref)]!.words, refWord(ref), wanted, visit);
  }

  mapConcept(conceptId: number, options?: MapConceptOptions): Concept[] {
    if (!isConceptId(conceptId)) return [];
    const at = this.idSlot(conceptId);
    const ref = at < 0 ? 0 : this.ids.words[at + 2]!;
    if (ref === 0) return [];
    const wanted = options?.relationships ? this.wanted(options.relationships) : this.defaultWanted;
    const target = options?.targetVocabulary;
    // The list walk is written out here, not through forEachRelation's callback: this runs per record.
    const words = this.relations[refSlab(ref)]!.words;
    let i = refWord(ref);
    const end = i + 1 + words[i]!;
    i++;
    const out: Concept[] = [];
    // The same concept can be related twice (e.g. "Maps to" and "Mapped from" to itself): one answer
    // each. A scan of the refs so far is fastest for the usual handful; hub concepts with thousands of
    // relations switch to a Set.
    const tried: number[] = [];
    let seen: Set<number> | undefined;
    while (i < end) {
      const group = words[i]!;
      const count = words[i + 1]!;
      i += 2;
      if (wanted.has(group)) {
        for (let k = i; k < i + count; k++) {
          const ref = words[k]!;
          if (seen) {
            if (seen.has(ref)) continue;
            seen.add(ref);
          } else {
            if (tried.includes(ref)) continue;
            if (tried.push(ref) === 32) seen = new Set(tried);
          }
          const c = this.conceptAt(ref);
          if (target === undefined || c.vocabulary_id === target) out.push(c);
        }
      }
      i += count;
    }
    return out;
  }

  standardConcept(vocabularyId: string, code: string): Concept | undefined {
    const source = this.lookupCode(vocabularyId, code);
    if (!source) return undefined;
    if (source.standard_concept === "S" && !source.invalid_reason) return source;
    const mapped = this.mapConcept(source.concept_id, { relationships: ["Maps to"] });
    return (
      mapped.find((c) => c.standard_concept === "S" && !c.invalid_reason) ??
      mapped.find((c) => c.standard_concept === "S")
    );
  }

  /** FHIR system URI (or openEHR terminology id) + code -> the standard concept, for FHIR/HL7 v2 -> OMOP. */
  standardConceptForSystem(system: string, code: string): Concept | undefined {
    const vocabularyId = vocabularyForSystem(system);
    return vocabularyId ? this.standardConcept(vocabularyId, code) : undefined;
  }

  /** FHIR system URI or openEHR terminology id -> OMOP vocabulary_id (the table in systems.ts). */
  vocabularyForSystem(system: string): string | undefined {
    return vocabularyForSystem(system);
  }

  toCodeableConcept(conceptId: number): CodeableConcept | undefined {
    const c = this.getConcept(conceptId);
    if (!c) return undefined;
    const display = displayableName(c.concept_name);
    const system = fhirSystemFor(c.vocabulary_id);
    return {
      coding: [{ ...(system ? { system } : {}), code: c.concept_code, ...(display ? { display } : {}) }],
      ...(display ? { text: display } : {}),
    };
  }

  toDvCodedText(conceptId: number): DvCodedText | undefined {
    const c = this.getConcept(conceptId);
    if (!c) return undefined;
    return {
      _type: "DV_CODED_TEXT",
      // DV_TEXT.value is mandatory: without a usable name, the code is the most honest text there is.
      value: displayableName(c.concept_name) ?? c.concept_code,
      defining_code: {
        _type: "CODE_PHRASE",
        terminology_id: { _type: "TERMINOLOGY_ID", value: openehrTerminologyFor(c.vocabulary_id) },
        code_string: c.concept_code,
      },
    };
  }

  /**
   * Every concept of `sourceVocabulary` (in concept_id order) paired with its related concepts in
   * `targetVocabulary`, lazily: a full SNOMED -> ICD10CM crosswalk never sits in memory. It scans the
   * concept records once, which is the price of keeping codes keyed by hash for fast lookups.
   */
  *crosswalk(
    sourceVocabulary: string,
    targetVocabulary: string,
    relationships: readonly string[] = DEFAULT_RELATIONSHIPS,
  ): Generator<CrosswalkRow> {
    const wanted = this.wanted(relationships);
    for (const source of this.allConcepts()) {
      if (source.vocabulary_id !== sourceVocabulary) continue;
      const hits: [number, number][] = [];
      this.forEachRelated(source.concept_id, wanted, (ref, rel) => hits.push([ref, rel]));
      for (const [ref, rel] of hits) {
        if (this.concepts.length === 0) return; // closed meanwhile
        const target = this.conceptAt(ref);
        if (target.vocabulary_id === targetVocabulary) {
          yield { source, relationship: this.info.relationship_ids[rel]!, target };
        }
      }
    }
  }

  /** Every concept of the index, in concept_id order, lazily (one scan of the concept records). */
  *allConcepts(): Generator<Concept> {
    for (let s = 0; s < this.concepts.length; s++) {
      let word = 0;
      // Re-read per record: a bridge closed between two rows has released the mapped slabs.
      while (this.concepts.length > s) {
        const { words, bytes } = this.concepts[s]!;
        // A zero length ends the slab (its padding): no encoded concept is empty.
        if (word + 2 > words.length || words[word + 1] === 0) break;
        const start = word * 4 + 8;
        const end = start + words[word + 1]!;
        const concept = decodeConcept(words[word]!, bytes, start, end);
        word = (end + 3) >>> 2;
        yield concept;
      }
    }
  }

  get release(): string | null {
    return this.info.release ?? null;
  }

  stats(): VocabularyStats {
    return { index_dir: this.dir, ...this.info, release: this.release };
  }

  /** Releases the index. Lookups after this answer "not found". */
  close(): Promise<void> {
    this.concepts = [];
    this.relations = [];
    this.ids = CLOSED_IDS;
    this.codes = CLOSED_CODES;
    this.searcher = undefined;
    this.searchSlabs = undefined;
    this.wordIndex = undefined;
    this.rowTokens = undefined;
    this.idSlabs = [];
    this.records?.close();
    this.records = null;
    return this.env.close();
  }

  private wanted(relationships: readonly string[]): ReadonlySet<number> {
    const cacheKey = relationships.join("\u0000");
    let set = this.wantedCache.get(cacheKey);
    if (!set) {
      set = new Set(
        relationships.map((r) => this.relIndex.get(r)).filter((i): i is number => i !== undefined),
      );
      if (this.wantedCache.size < 64) this.wantedCache.set(cacheKey, set);
    }
    return set;
  }
}

/** The layout version of the index in `dir`, or undefined when it holds none that can be read. */
export function indexLayout(dir: string): number | undefined {
  const file = join(dir, DATA_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const env = open({ path: file, ...READ_ONLY_OPTIONS });
    try {
      return env.openDB<IndexInfo, string>({ name: DB.meta }).get("info")?.layout;
    } finally {
      void env.close();
    }
  } catch {
    return undefined;
  }
}

/** Opens an index directory built by `crossmap vocab build`. */
export function openVocabulary(dir: string): LmdbVocabularyBridge {
  const file = join(dir, DATA_FILE);
  if (!existsSync(file)) {
    throw new AppError(
      404,
      "vocab_index_missing",
      `${dir} holds no vocabulary index (expected ${DATA_FILE}); build one with \`crossmap vocab build\``,
    );
  }
  const started = performance.now();
  const env = open({ path: file, ...READ_ONLY_OPTIONS });
  let bridge: LmdbVocabularyBridge;
  try {
    bridge = new LmdbVocabularyBridge(env, dir);
  } catch (err) {
    void env.close();
    throw err;
  }
  const notice = copiedIndexNotice(dir, bridge.copiedBytes, performance.now() - started);
  // Once per process: worker threads open the same index and would repeat it.
  if (notice && isMainThread) process.emitWarning(notice, { code: "CROSSMAP_VOCAB_COPIED" });
  return bridge;
}

/** Below this, a copy at open costs milliseconds (the small slabs of any index are copied). */
const COPY_NOTICE_BYTES = 64 << 20;

/**
 * What to tell a user whose lmdb-js copied the index instead of mapping it: lmdb 3.5 ships no binary
 * built against Node 24's V8, and its plain N-API binary copies every value it reads.
 */
export function copiedIndexNotice(dir: string, copiedBytes: number, ms: number): string | undefined {
  if (copiedBytes < COPY_NOTICE_BYTES) return undefined;
  const mb = Math.round(copiedBytes / 1e6).toLocaleString("en-US");
  return (
    `the vocabulary index ${dir} was copied into memory (${mb} MB in ${Math.round(ms)} ms), not mapped: ` +
    `the installed lmdb has no binary built for Node ${process.versions.node}'s V8, so every thread ` +
    "that opens the index holds its own copy. `npm rebuild lmdb --build-from-source` (needs a C++ " +
    "compiler) or Node 20/22 maps it instead."
  );
}
