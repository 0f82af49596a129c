// Schema and concept mapping items of every project, with a natural-key index so a push can find
// the item a client means even when it does not know the server id.
import type { Database } from "lmdb";
import { compositeKey, isStorableId, prefixRange } from "./keys-util.js";
import type { ItemMeta } from "./types.js";

export interface Page {
  limit: number;
  offset: number;
}

export interface ItemPage<T> {
  items: T[];
  total: number;
}

export class ItemStore<T extends ItemMeta> {
  constructor(
    private readonly items: Database<T, string>,
    /** project + natural key -> item id. */
    private readonly naturalIndex: Database<string, string>,
    /** The parts of an item that identify it to a client, e.g. source table and column. */
    readonly naturalKey: (item: Omit<T, keyof ItemMeta>) => string[],
  ) {}

  get(projectId: string, id: string): T | undefined {
    if (!isStorableId(projectId) || !isStorableId(id)) return undefined;
    return this.items.get(compositeKey(projectId, id));
  }

  findByNaturalKey(projectId: string, item: Omit<T, keyof ItemMeta>): T | undefined {
    const id = this.naturalIndex.get(compositeKey(projectId, ...this.naturalKey(item)));
    return id === undefined ? undefined : this.get(projectId, id);
  }

  /** Call inside a write transaction; `previous` is the stored version, so a changed natural key is re-indexed. */
  put(projectId: string, item: T, previous?: T): void {
    this.items.put(compositeKey(projectId, item.id), item);
    const newKey = compositeKey(projectId, ...this.naturalKey(item));
    if (previous) {
      const oldKey = compositeKey(projectId, ...this.naturalKey(previous));
      // Reviews never change the natural key: skip the index write they would otherwise all pay for.
      if (oldKey === newKey) return;
      this.naturalIndex.remove(oldKey);
    }
    this.naturalIndex.put(newKey, item.id);
  }

  /** Up to `limit` items of a project in id order, starting after item `afterId` (from the first when undefined). */
  chunk(projectId: string, afterId: string | undefined, limit: number): T[] {
    const range = prefixRange(projectId);
    const start = afterId === undefined ? range.start : compositeKey(projectId, afterId);
    const out: T[] = [];
    for (const { key, value } of this.items.getRange({ start, end: range.end, limit: limit + 1 })) {
      if (afterId !== undefined && key === start) continue;
      out.push(value);
      if (out.length === limit) break;
    }
    return out;
  }

  /**
   * Items of a project in id order, filtered, one page of them plus the filtered total.
   * A scan of the project's items: fine for the thousands of columns and codes a project has.
   */
  list(projectId: string, page?: Page, filter?: (item: T) => boolean): ItemPage<T> {
    const items: T[] = [];
    let total = 0;
    const from = page?.offset ?? 0;
    const to = page ? from + page.limit : Number.POSITIVE_INFINITY;
    for (const { value } of this.items.getRange(prefixRange(projectId))) {
      if (filter && !filter(value)) continue;
      if (total >= from && total < to) items.push(value);
      total++;
    }
    return { items, total };
  }
}
