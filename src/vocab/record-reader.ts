// Concept records, names and "Maps to" lists read with pread from the index file instead of through the
// memory map, for the suggester: it reads a few hundred records per term at random, and Linux maps up to
// 64 KB of cached file around each page fault, so after 10,000 terms every area it reads is whole in the
// process's RSS (1 GB of a 5M-concept index). A pread copies only the bytes asked for.
import { closeSync, openSync, readSync } from "node:fs";
import type { Concept } from "./bridge.js";
import { decodeConcept, ID_SLOT, mix32, refSlab, refWord } from "./layout.js";
import type { Slab } from "./slabs.js";

/** Bytes read at once for a record: enough for nearly every one, so one call reads it. */
const CHUNK = 512;
/** The byte that ends a concept record's name (layout.ts encodeConcept's separator). */
const NAME_END = 0x1f;
const TWO_32 = 4294967296;

/** Where each slab of an area starts in the file, and how many bytes it has. */
export interface AreaFile {
  offsets: number[];
  lengths: number[];
}

/**
 * Where the slabs start in `file`, when every one is a view into the memory map at its file offset (lmdb-js
 * maps the file from offset 0, so a view's byteOffset is its place in the file), checked by reading each
 * slab's first bytes back; undefined when any is not (a copied slab, another mapping).
 */
export function areaInFile(fd: number, slabs: readonly Slab[]): AreaFile | undefined {
  const offsets: number[] = [];
  const lengths: number[] = [];
  const probe = Buffer.alloc(64);
  for (const s of slabs) {
    if (!s.mapped) return undefined;
    const at = s.bytes.byteOffset;
    const n = Math.min(probe.length, s.bytes.length);
    if (readSync(fd, probe, 0, n, at) !== n || probe.compare(s.bytes, 0, n, 0, n) !== 0) return undefined;
    offsets.push(at);
    lengths.push(s.bytes.length);
  }
  return { offsets, lengths };
}

export class RecordReader {
  private buf = Buffer.alloc(CHUNK);
  private words = new Uint32Array(this.buf.buffer, this.buf.byteOffset, CHUNK >>> 2);

  constructor(
    private readonly fd: number,
    private readonly concepts: AreaFile,
    private readonly relations: AreaFile,
    private readonly ids: AreaFile,
  ) {}

  /** Opens `file` for the three areas, or undefined when their slabs are not where the map says. */
  static open(
    file: string,
    areas: { concepts: readonly Slab[]; relations: readonly Slab[]; ids: readonly Slab[] },
  ): RecordReader | undefined {
    let fd: number;
    try {
      fd = openSync(file, "r");
    } catch {
      return undefined;
    }
    const concepts = areaInFile(fd, areas.concepts);
    const relations = areaInFile(fd, areas.relations);
    const ids = areaInFile(fd, areas.ids);
    if (concepts && relations && ids && ids.lengths.length > 0) {
      return new RecordReader(fd, concepts, relations, ids);
    }
    closeSync(fd);
    return undefined;
  }

  close(): void {
    closeSync(this.fd);
  }

  /** `words` u32s of an area from word `word` of slab `slab` into this.words (grown as needed), at most to the slab's end. */
  private read(area: AreaFile, slab: number, word: number, words: number): number {
    const bytes = Math.min(words * 4, area.lengths[slab]! - word * 4);
    if (bytes > this.buf.length) {
      this.buf = Buffer.alloc(Math.ceil(bytes / CHUNK) * CHUNK);
      this.words = new Uint32Array(this.buf.buffer, this.buf.byteOffset, this.buf.length >>> 2);
    }
    return readSync(this.fd, this.buf, 0, bytes, area.offsets[slab]! + word * 4) >>> 2;
  }

  /** The concept record at `ref` (layout.makeRef): `u32 id, u32 byte length, UTF-8`. */
  conceptAt(ref: number): Concept {
    const { id, start, end } = this.record(ref);
    return decodeConcept(id, this.buf, start, end);
  }

  /** The id and name of the concept record at `ref`: its first field, up to the separator. */
  nameAt(ref: number): { id: number; name: string } {
    const { id, start, end } = this.record(ref);
    const stop = this.buf.indexOf(NAME_END, start);
    return { id, name: this.buf.toString("utf8", start, stop < 0 || stop > end ? end : stop) };
  }

  private record(ref: number): { id: number; start: number; end: number } {
    const slab = refSlab(ref);
    const word = refWord(ref);
    this.read(this.concepts, slab, word, CHUNK >>> 2);
    const length = this.words[1]!;
    if (8 + length > CHUNK) this.read(this.concepts, slab, word, 2 + ((length + 3) >>> 2));
    return { id: this.words[0]!, start: 8, end: 8 + length };
  }

  /**
   * The concept refs related to `conceptId` in the relationship groups `wanted`, each once, in list order
   * (lmdb-bridge.ts mapConcept's order): the id's slot from the ids table (layout.ts), then its list.
   */
  relatedRefs(conceptId: number, wanted: ReadonlySet<number>): number[] {
    const relations = this.relationsRef(conceptId);
    if (relations === 0) return [];
    const slab = refSlab(relations);
    const word = refWord(relations);
    this.read(this.relations, slab, word, CHUNK >>> 2);
    const count = this.words[0]!;
    if (1 + count > CHUNK >>> 2) this.read(this.relations, slab, word, 1 + count);
    const w = this.words;
    const out: number[] = [];
    let i = 1;
    while (i < 1 + count) {
      const group = w[i]!;
      const n = w[i + 1]!;
      i += 2;
      if (wanted.has(group)) for (let k = i; k < i + n; k++) if (!out.includes(w[k]!)) out.push(w[k]!);
      i += n;
    }
    return out;
  }

  /** The relations ref in concept `id`'s slot of the ids table, or 0: the probe of hash-table.ts, by pread. */
  private relationsRef(id: number): number {
    const h = mix32(id);
    const parts = this.ids.lengths.length;
    const p = Math.floor((h * parts) / TWO_32);
    const partWords = this.ids.lengths[p]! >>> 2;
    const slots = partWords / ID_SLOT;
    let at = Math.floor((((h * parts) % TWO_32) * slots) / TWO_32) * ID_SLOT;
    for (;;) {
      const got = this.read(this.ids, p, at, (CHUNK >>> 2) - ((CHUNK >>> 2) % ID_SLOT));
      for (let k = 0; k + ID_SLOT <= got; k += ID_SLOT) {
        if (this.words[k + 1] === 0) return 0;
        if (this.words[k] === id) return this.words[k + 2]!;
      }
      at += got - (got % ID_SLOT);
      if (at >= partWords) at = 0;
    }
  }
}
