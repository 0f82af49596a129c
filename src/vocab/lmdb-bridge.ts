// The VocabularyBridge over a built index: opened read-only and memory-mapped, so opening costs a few
// milliseconds, lookups are synchronous B-tree reads, and every worker process shares the same pages.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Database, open, type RootDatabase } from "lmdb";
import { AppError } from "../errors.js";
import type { CodeableConcept, Concept, DvCodedText, MapConceptOptions, VocabularyBridge } from "./bridge.js";
import {
  codeHash,
  DATA_FILE,
  DB,
  decodeConcept,
  findCodeEntry,
  forEachGroup,
  type IndexInfo,
  isConceptId,
  LAYOUT_VERSION,
} from "./layout.js";
import { fhirSystemFor, openehrTerminologyFor, vocabularyForSystem } from "./systems.js";

export const DEFAULT_RELATIONSHIPS = ["Maps to", "Mapped from"] as const;

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

export class LmdbVocabularyBridge implements VocabularyBridge {
  private readonly concepts: Database<Buffer, number>;
  private readonly codes: Database<Buffer, number>;
  private readonly relations: Database<Buffer, number>;
  readonly info: IndexInfo;
  private readonly relIndex: Map<string, number>;
  private readonly defaultWanted: ReadonlySet<number>;
  // mapConcept is called per record with the same few relationship lists: resolve each list once.
  private readonly wantedCache = new Map<string, ReadonlySet<number>>();

  constructor(
    private readonly env: RootDatabase,
    readonly dir: string,
  ) {
    this.concepts = env.openDB({ name: DB.concepts, keyEncoding: "uint32", encoding: "binary" });
    this.codes = env.openDB({ name: DB.codes, keyEncoding: "uint32", encoding: "binary" });
    this.relations = env.openDB({ name: DB.relations, keyEncoding: "uint32", encoding: "binary" });
    const info = env.openDB<IndexInfo, string>({ name: DB.meta }).get("info");
    if (!info || info.layout !== LAYOUT_VERSION) {
      throw new AppError(
        422,
        "vocab_index_invalid",
        `${dir} is not a vocabulary index of layout ${LAYOUT_VERSION}; rebuild it with \`crossmap vocab build\``,
      );
    }
    this.info = info;
    this.relIndex = new Map(info.relationship_ids.map((r, i) => [r, i]));
    this.defaultWanted = this.wanted(DEFAULT_RELATIONSHIPS);
  }

  getConcept(conceptId: number): Concept | undefined {
    if (!isConceptId(conceptId)) return undefined;
    const buf = this.concepts.getBinaryFast(conceptId);
    return buf ? decodeConcept(conceptId, buf) : undefined;
  }

  lookupCode(vocabularyId: string, code: string): Concept | undefined {
    if (typeof vocabularyId !== "string" || typeof code !== "string" || vocabularyId === "" || code === "") {
      return undefined;
    }
    // One read: the concepts under this hash come with their values, in preference order (standard,
    // classification, valid, invalid).
    const buf = this.codes.getBinaryFast(codeHash(vocabularyId, code));
    return buf ? findCodeEntry(buf, vocabularyId, code) : undefined;
  }

  mapConcept(conceptId: number, options?: MapConceptOptions): Concept[] {
    if (!isConceptId(conceptId)) return [];
    const buf = this.relations.getBinaryFast(conceptId);
    if (!buf) return [];
    const wanted = options?.relationships ? this.wanted(options.relationships) : this.defaultWanted;
    const target = options?.targetVocabulary;
    // The same concept can be related twice (e.g. "Maps to" and "Mapped from" to itself). A linear scan
    // is fastest for the usual handful; hub concepts with thousands of relations switch to a Set.
    const ids: number[] = [];
    let seen: Set<number> | undefined;
    forEachGroup(buf, wanted, (id) => {
      if (seen) {
        if (!seen.has(id)) {
          seen.add(id);
          ids.push(id);
        }
      } else if (!ids.includes(id)) {
        ids.push(id);
        if (ids.length === 32) seen = new Set(ids);
      }
    });
    const out: Concept[] = [];
    for (const id of ids) {
      const c = this.getConcept(id);
      if (c && (target === undefined || c.vocabulary_id === target)) out.push(c);
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
   * concepts database once, which is the price of keeping codes keyed by hash for fast lookups.
   */
  *crosswalk(
    sourceVocabulary: string,
    targetVocabulary: string,
    relationships: readonly string[] = DEFAULT_RELATIONSHIPS,
  ): Generator<CrosswalkRow> {
    const wanted = this.wanted(relationships);
    for (const { key, value } of this.concepts.getRange({})) {
      const source = decodeConcept(key, value);
      if (source.vocabulary_id !== sourceVocabulary) continue;
      const buf = this.relations.getBinaryFast(key);
      if (!buf) continue;
      const hits: [number, number][] = [];
      forEachGroup(buf, wanted, (id, rel) => hits.push([id, rel]));
      for (const [id, rel] of hits) {
        const target = this.getConcept(id);
        if (target && target.vocabulary_id === targetVocabulary) {
          yield { source, relationship: this.info.relationship_ids[rel]!, target };
        }
      }
    }
  }

  stats(): VocabularyStats {
    return { index_dir: this.dir, ...this.info };
  }

  close(): Promise<void> {
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
    const env = open({ path: file, noSubdir: true, readOnly: true, maxDbs: 8 });
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
  const env = open({ path: file, noSubdir: true, readOnly: true, maxDbs: 8 });
  try {
    return new LmdbVocabularyBridge(env, dir);
  } catch (err) {
    void env.close();
    throw err;
  }
}
