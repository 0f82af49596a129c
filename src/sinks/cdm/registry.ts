// The id registry: turns the crossmap's source keys (the 64-bit hashed or decimal ids it writes) into small
// integers that fit the CDM DDL's `integer` keys, the same integer for the same key in every run, and
// remembers which rows were written (and a hash of each) so that a second copy is skipped, or named when
// it differs. Changes are staged per batch and kept or dropped with the batch's transaction.
import { AppError } from "../../errors.js";
import { IdTable, keyHash, NO_ROW } from "./id-table.js";

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

export type Claim = "new" | "same" | "differs";

/**
 * The batch's changes, beside the committed table: a small table of its own from key hash to entry number,
 * and the entries in columns (no object or string key per lookup: this runs for every id of every row).
 */
class Staging {
  readonly table = new IdTable(1 << 14);
  namespaces: string[] = [];
  keys: string[] = [];
  hi: number[] = [];
  lo: number[] = [];
  ids: number[] = [];
  rows: number[] = [];
  /** Already in the committed table (its row is being set now). */
  known: boolean[] = [];

  get size(): number {
    return this.keys.length;
  }

  /** The entry number of a key, or -1. */
  find(hi: number, lo: number): number {
    return this.table.get(hi, lo).id - 1;
  }

  add(
    namespace: string,
    key: string,
    hi: number,
    lo: number,
    id: number,
    row: number,
    known: boolean,
  ): number {
    const at = this.keys.length;
    this.namespaces.push(namespace);
    this.keys.push(key);
    this.hi.push(hi);
    this.lo.push(lo);
    this.ids.push(id);
    this.rows.push(row);
    this.known.push(known);
    this.table.set(hi, lo, at + 1, 0);
    return at;
  }

  clear(): void {
    if (this.keys.length === 0) return;
    this.table.clear();
    this.namespaces = [];
    this.keys = [];
    this.hi = [];
    this.lo = [];
    this.ids = [];
    this.rows = [];
    this.known = [];
  }
}

export class IdRegistry {
  private readonly table: IdTable;
  private readonly namespaces = new Map<string, number>();
  private next: number[] = [];
  private nextAtBatch: number[] = [];
  private readonly staged = new Staging();

  constructor(capacity?: number) {
    this.table = new IdTable(capacity);
  }

  get size(): number {
    return this.table.size;
  }

  private ns(namespace: string): number {
    let n = this.namespaces.get(namespace);
    if (n === undefined) {
      n = this.namespaces.size;
      this.namespaces.set(namespace, n);
      this.next[n] = 1;
      this.nextAtBatch[n] = 1;
    }
    return n;
  }

  /** Adds a stored entry (at load). */
  load(entry: RegistryEntry): void {
    const n = this.ns(entry.namespace);
    const [hi, lo] = keyHash(n, entry.key);
    this.table.set(hi, lo, entry.id, entry.row);
    if (entry.id >= this.next[n]!) this.next[n] = this.nextAtBatch[n] = entry.id + 1;
  }

  /** Makes new ids of `namespace` start above `maxId` (ids written into the table by other means). */
  reserve(namespace: string, maxId: number): void {
    const n = this.ns(namespace);
    if (maxId >= this.next[n]!) this.next[n] = this.nextAtBatch[n] = maxId + 1;
  }

  /** The id of a key, assigned now if it is new. */
  idFor(namespace: string, key: string): number {
    const n = this.ns(namespace);
    const [hi, lo] = keyHash(n, key);
    const at = this.staged.find(hi, lo);
    if (at >= 0) return this.staged.ids[at]!;
    const { id } = this.table.get(hi, lo);
    if (id !== 0) return id;
    return this.staged.ids[this.staged.add(namespace, key, hi, lo, this.newId(namespace, n), NO_ROW, false)]!;
  }

  /**
   * Records that a row with this key and hash is to be written: "new" (write it), "same" (a copy of a row
   * already written: skip it) or "differs" (another row was written under this key first: skip it, say so).
   */
  claim(namespace: string, key: string, row: number): { claim: Claim; id: number } {
    const n = this.ns(namespace);
    const [hi, lo] = keyHash(n, key);
    const s = this.staged;
    const at = s.find(hi, lo);
    if (at >= 0) {
      if (s.rows[at] !== NO_ROW) return { claim: s.rows[at] === row ? "same" : "differs", id: s.ids[at]! };
      s.rows[at] = row;
      return { claim: "new", id: s.ids[at]! };
    }
    const found = this.table.get(hi, lo);
    if (found.id !== 0 && found.row !== NO_ROW) {
      return { claim: found.row === row ? "same" : "differs", id: found.id };
    }
    const id = found.id !== 0 ? found.id : this.newId(namespace, n);
    s.add(namespace, key, hi, lo, id, row, found.id !== 0);
    return { claim: "new", id };
  }

  private newId(namespace: string, n: number): number {
    const id = this.next[n]!;
    if (id > MAX_ID) {
      throw new AppError(500, "id_registry_full", `no integer id left for ${namespace}: 2^31 - 1 are in use`);
    }
    this.next[n] = id + 1;
    return id;
  }

  /** What the current batch changed (for the store to persist in the same transaction). */
  changes(): RegistryChanges {
    const s = this.staged;
    const added: RegistryEntry[] = [];
    const rowsSet: RegistryEntry[] = [];
    for (let i = 0; i < s.size; i++) {
      const entry = { namespace: s.namespaces[i]!, key: s.keys[i]!, id: s.ids[i]!, row: s.rows[i]! };
      if (s.known[i]) rowsSet.push(entry);
      else added.push(entry);
    }
    return { added, rowsSet };
  }

  /** Whether the current batch changed anything. */
  get dirty(): boolean {
    return this.staged.size > 0;
  }

  /** Keeps the batch's changes. */
  commit(): void {
    const s = this.staged;
    for (let i = 0; i < s.size; i++) this.table.set(s.hi[i]!, s.lo[i]!, s.ids[i]!, s.rows[i]!);
    s.clear();
    this.nextAtBatch = [...this.next];
  }

  /** Forgets the batch's changes (its transaction was rolled back). */
  rollback(): void {
    this.staged.clear();
    this.next = [...this.nextAtBatch];
  }
}
