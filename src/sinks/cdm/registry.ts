// The id registry: turns the crossmap's source keys (the 64-bit hashed or decimal ids it writes) into small
// integers that fit the CDM DDL's `integer` keys, the same integer for the same key in every run, and
// remembers which rows were written (and a hash of each) so that a second copy is skipped, or named when
// it differs. A batch's changes go straight into the table and are logged beside it, so that the batch can
// be persisted with its rows, and undone if its transaction fails.
import { AppError } from "../../errors.js";
import { IdTable, KeyHash, NO_ROW } from "./id-table.js";

const MAX_ID = 2 ** 31 - 1;

/** One registry entry as stores keep it. */
export interface RegistryEntry {
  namespace: string;
  key: string;
  id: number;
  /** The written row's hash; 0 when the key was only referenced so far. */
  row: number;
}

/** What a batch changed: entries new to the registry, and known entries whose row was written now. */
export interface RegistryChanges {
  added: RegistryEntry[];
  rowsSet: RegistryEntry[];
}

/**
 * A batch's changes of one namespace, in columns (how the database store writes them). Typed arrays: row
 * hashes are full 32-bit integers, which a plain array would box one by one.
 */
export interface RegistryBlock {
  namespace: string;
  keys: string[];
  ids: Int32Array;
  rows: Int32Array;
}

export type Claim = "new" | "same" | "differs";

/**
 * The batch's changes, in columns: typed arrays for the numbers (hashes are full 32-bit integers, which a
 * plain array would box one by one), no object per entry: this grows with every new id of every row. Each
 * entry keeps its id and row hash, so that writing the batch out needs no lookup in the (large) table.
 */
class BatchLog {
  ns = new Int32Array(1024);
  hi = new Int32Array(1024);
  lo = new Int32Array(1024);
  id = new Int32Array(1024);
  row = new Int32Array(1024);
  /** 1: already in the table before the batch (its row is being set now). */
  known = new Uint8Array(1024);
  keys: string[] = [];

  get size(): number {
    return this.keys.length;
  }

  /** Logs an entry; answers its position. */
  add(ns: number, key: string, hi: number, lo: number, id: number, row: number, known: boolean): number {
    const at = this.keys.length;
    if (at === this.ns.length) this.grow();
    this.ns[at] = ns;
    this.hi[at] = hi;
    this.lo[at] = lo;
    this.id[at] = id;
    this.row[at] = row;
    this.known[at] = known ? 1 : 0;
    this.keys.push(key);
    return at;
  }

  private grow(): void {
    const size = this.ns.length * 2;
    const widen = <T extends Int32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.ns = widen(this.ns, (n) => new Int32Array(n));
    this.hi = widen(this.hi, (n) => new Int32Array(n));
    this.lo = widen(this.lo, (n) => new Int32Array(n));
    this.id = widen(this.id, (n) => new Int32Array(n));
    this.row = widen(this.row, (n) => new Int32Array(n));
    this.known = widen(this.known, (n) => new Uint8Array(n));
  }

  clear(): void {
    if (this.keys.length > 0) this.keys = [];
  }
}

/** Per namespace, the log position of each id handed out in the batch (ids are consecutive from the batch's first). */
class NewIdPositions {
  private at: Int32Array[] = [];

  set(ns: number, offset: number, position: number): void {
    let a = this.at[ns];
    if (!a || offset >= a.length) {
      const b = new Int32Array(Math.max(1024, (offset + 1) * 2));
      if (a) b.set(a);
      a = b;
      this.at[ns] = a;
    }
    a[offset] = position;
  }

  get(ns: number, offset: number): number {
    return this.at[ns]![offset]!;
  }
}

export class IdRegistry {
  private readonly table: IdTable;
  private readonly namespaces = new Map<string, number>();
  private readonly names: string[] = [];
  private next: number[] = [];
  private nextAtBatch: number[] = [];
  private readonly log = new BatchLog();
  private readonly newIds = new NewIdPositions();
  private readonly hash = new KeyHash();
  /** The last namespace looked up, and its number (rows ask for the same few namespaces over and over). */
  private lastName = "";
  private lastNs = -1;

  constructor(capacity?: number) {
    this.table = new IdTable(capacity);
  }

  get size(): number {
    return this.table.size;
  }

  private ns(namespace: string): number {
    if (namespace === this.lastName) return this.lastNs;
    let n = this.namespaces.get(namespace);
    if (n === undefined) {
      n = this.namespaces.size;
      this.namespaces.set(namespace, n);
      this.names.push(namespace);
      this.next[n] = 1;
      this.nextAtBatch[n] = 1;
    }
    this.lastName = namespace;
    this.lastNs = n;
    return n;
  }

  /** Adds a stored entry (at load). An entry stored twice (referenced, then its row set) keeps its row. */
  load(entry: RegistryEntry): void {
    const n = this.ns(entry.namespace);
    const { hi, lo } = this.hash.of(n, entry.key);
    const slot = this.table.slot(hi, lo);
    if (this.table.idAt(slot) !== 0 && entry.row === NO_ROW) return;
    this.table.set(hi, lo, entry.id, entry.row);
    if (entry.id >= this.next[n]!) this.next[n] = this.nextAtBatch[n] = entry.id + 1;
  }

  /** Makes new ids of `namespace` start above `maxId` (ids written into the table by other means). */
  reserve(namespace: string, maxId: number): void {
    const n = this.ns(namespace);
    if (maxId >= this.next[n]!) this.next[n] = this.nextAtBatch[n] = maxId + 1;
  }

  /** The id of a key, if the registry knows it (assigns none). */
  find(namespace: string, key: string): number | undefined {
    const { hi, lo } = this.hash.of(this.ns(namespace), key);
    const id = this.table.idAt(this.table.slot(hi, lo));
    return id === 0 ? undefined : id;
  }

  /** The id the next new key of `namespace` would get. */
  nextId(namespace: string): number {
    return this.next[this.ns(namespace)]!;
  }

  /** The id of a key, assigned now if it is new. */
  idFor(namespace: string, key: string): number {
    const n = this.ns(namespace);
    const { hi, lo } = this.hash.of(n, key);
    const id = this.table.idAt(this.table.slot(hi, lo));
    if (id !== 0) return id;
    const fresh = this.newId(namespace, n);
    this.table.set(hi, lo, fresh, NO_ROW);
    this.logNew(n, key, hi, lo, fresh, NO_ROW);
    return fresh;
  }

  /**
   * Records that a row with this key and hash is to be written: "new" (write it), "same" (a copy of a row
   * already written: skip it) or "differs" (another row was written under this key first: skip it, say so).
   */
  claim(namespace: string, key: string, row: number): { claim: Claim; id: number } {
    const n = this.ns(namespace);
    const { hi, lo } = this.hash.of(n, key);
    const slot = this.table.slot(hi, lo);
    const id = this.table.idAt(slot);
    if (id === 0) {
      const fresh = this.newId(namespace, n);
      this.table.set(hi, lo, fresh, row);
      this.logNew(n, key, hi, lo, fresh, row);
      return { claim: "new", id: fresh };
    }
    const had = this.table.rowAt(slot);
    if (had !== NO_ROW) return { claim: had === row ? "same" : "differs", id };
    this.table.setRowAt(slot, row);
    // An id handed out in this batch is logged already (its row is set there); an older one is logged now,
    // as a known entry.
    const first = this.nextAtBatch[n]!;
    if (id < first) this.log.add(n, key, hi, lo, id, row, true);
    else this.log.row[this.newIds.get(n, id - first)] = row;
    return { claim: "new", id };
  }

  private logNew(n: number, key: string, hi: number, lo: number, id: number, row: number): void {
    this.newIds.set(n, id - this.nextAtBatch[n]!, this.log.add(n, key, hi, lo, id, row, false));
  }

  private newId(namespace: string, n: number): number {
    const id = this.next[n]!;
    if (id > MAX_ID) {
      throw new AppError(500, "id_registry_full", `no integer id left for ${namespace}: 2^31 - 1 are in use`);
    }
    this.next[n] = id + 1;
    return id;
  }

  private entryAt(i: number): { id: number; row: number } {
    return { id: this.log.id[i]!, row: this.log.row[i]! };
  }

  /** What the current batch changed, one object per entry (for the LMDB store and tests). */
  changes(): RegistryChanges {
    const log = this.log;
    const added: RegistryEntry[] = [];
    const rowsSet: RegistryEntry[] = [];
    for (let i = 0; i < log.size; i++) {
      const entry = { namespace: this.names[log.ns[i]!]!, key: log.keys[i]!, ...this.entryAt(i) };
      if (log.known[i]) rowsSet.push(entry);
      else added.push(entry);
    }
    return { added, rowsSet };
  }

  /** What the current batch changed, per namespace in order of first sight, entries in order of change. */
  blocks(): RegistryBlock[] {
    const log = this.log;
    const counts: number[] = [];
    const order: number[] = [];
    for (let i = 0; i < log.size; i++) {
      const n = log.ns[i]!;
      if (counts[n] === undefined) {
        counts[n] = 0;
        order.push(n);
      }
      counts[n]++;
    }
    const byNs: RegistryBlock[] = [];
    const fill: number[] = [];
    for (const n of order) {
      byNs[n] = {
        namespace: this.names[n]!,
        keys: new Array<string>(counts[n]!),
        ids: new Int32Array(counts[n]!),
        rows: new Int32Array(counts[n]!),
      };
      fill[n] = 0;
    }
    for (let i = 0; i < log.size; i++) {
      const n = log.ns[i]!;
      const b = byNs[n]!;
      const at = fill[n]!;
      b.keys[at] = log.keys[i]!;
      b.ids[at] = log.id[i]!;
      b.rows[at] = log.row[i]!;
      fill[n] = at + 1;
    }
    return order.map((n) => byNs[n]!);
  }

  /** Whether the current batch changed anything. */
  get dirty(): boolean {
    return this.log.size > 0;
  }

  /** Keeps the batch's changes. */
  commit(): void {
    this.log.clear();
    this.nextAtBatch = [...this.next];
  }

  /** Forgets the batch's changes (its transaction was rolled back). */
  rollback(): void {
    const log = this.log;
    for (let i = log.size - 1; i >= 0; i--) {
      if (log.known[i]) this.table.setRowAt(this.table.slot(log.hi[i]!, log.lo[i]!), NO_ROW);
      else this.table.delete(log.hi[i]!, log.lo[i]!);
    }
    log.clear();
    this.next = [...this.nextAtBatch];
  }
}
