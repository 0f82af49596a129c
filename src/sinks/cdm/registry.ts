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

interface Staged extends RegistryEntry {
  hi: number;
  lo: number;
  /** Already in the committed table (its row is being set now). */
  known: boolean;
}

export class IdRegistry {
  private readonly table: IdTable;
  private readonly namespaces = new Map<string, number>();
  private next: number[] = [];
  private nextAtBatch: number[] = [];
  private staged = new Map<string, Staged>();

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

  private find(
    namespace: string,
    key: string,
  ): Staged | { id: number; row: number; hi: number; lo: number; n: number } {
    const n = this.ns(namespace);
    const staged = this.staged.get(`${n}\u0000${key}`);
    if (staged) return staged;
    const [hi, lo] = keyHash(n, key);
    const { id, row } = this.table.get(hi, lo);
    return { id, row, hi, lo, n };
  }

  /** The id of a key, assigned now if it is new. */
  idFor(namespace: string, key: string): number {
    const found = this.find(namespace, key);
    if (found.id !== 0) return found.id;
    return this.stage(
      namespace,
      key,
      found as { id: number; hi: number; lo: number; n: number },
      NO_ROW,
      false,
    ).id;
  }

  /**
   * Records that a row with this key and hash is to be written: "new" (write it), "same" (a copy of a row
   * already written: skip it) or "differs" (another row was written under this key first: skip it, say so).
   */
  claim(namespace: string, key: string, row: number): { claim: Claim; id: number } {
    const found = this.find(namespace, key);
    if (found.id !== 0 && found.row !== NO_ROW) {
      return { claim: found.row === row ? "same" : "differs", id: found.id };
    }
    if ("known" in found) {
      found.row = row;
      return { claim: "new", id: found.id };
    }
    const f = found as { id: number; hi: number; lo: number; n: number };
    const staged = this.stage(namespace, key, f, row, f.id !== 0);
    return { claim: "new", id: staged.id };
  }

  private stage(
    namespace: string,
    key: string,
    at: { id: number; hi: number; lo: number; n: number },
    row: number,
    known: boolean,
  ): Staged {
    let id = at.id;
    if (!known) {
      id = this.next[at.n]!;
      if (id > MAX_ID) {
        throw new AppError(
          500,
          "id_registry_full",
          `no integer id left for ${namespace}: 2^31 - 1 are in use`,
        );
      }
      this.next[at.n] = id + 1;
    }
    const staged: Staged = { namespace, key, id, row, hi: at.hi, lo: at.lo, known };
    this.staged.set(`${at.n}\u0000${key}`, staged);
    return staged;
  }

  /** What the current batch changed (for the store to persist in the same transaction). */
  changes(): RegistryChanges {
    const added: RegistryEntry[] = [];
    const rowsSet: RegistryEntry[] = [];
    for (const s of this.staged.values()) {
      const entry = { namespace: s.namespace, key: s.key, id: s.id, row: s.row };
      if (s.known) rowsSet.push(entry);
      else added.push(entry);
    }
    return { added, rowsSet };
  }

  /** Keeps the batch's changes. */
  commit(): void {
    for (const s of this.staged.values()) this.table.set(s.hi, s.lo, s.id, s.row);
    this.staged.clear();
    this.nextAtBatch = [...this.next];
  }

  /** Forgets the batch's changes (its transaction was rolled back). */
  rollback(): void {
    this.staged.clear();
    this.next = [...this.nextAtBatch];
  }
}
