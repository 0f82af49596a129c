// An in-memory copy of one project's items of one kind, so that listing, stats, bulk filters and the
// decision overlay read 100,000 items in milliseconds instead of decoding them from LMDB (a scan of
// 100,000 concept items took 0.9-2 s on the 2-core development VM; a list request must not).
//
// It stays current two ways. Changes this process commits are handed to it right after their commit
// (env.ts `write`), with their audit sequence numbers. Changes of other processes (the CLI) are found in
// the audit log: every change is saved with an event holding the item after it (changes.ts), numbered
// in commit order (audit.ts), so the events past the last number the mirror knows are what it missed,
// minus its own; reading them costs one B-tree descent when there are none.
import type { AuditStore } from "./audit.js";
import type { ItemStore } from "./items.js";
import type { AuditEvent, ConceptItem, ItemKind, SchemaItem } from "./types.js";

/**
 * Key order as LMDB keeps it (UTF-8 bytes, i.e. code points): JavaScript's `<` compares UTF-16 units,
 * which puts characters beyond U+FFFF before U+E000-U+FFFF.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** Items (or audit events) read at a time while a mirror is built or catches up: 2-4 ms of decoding. */
const CHUNK = 200;

/**
 * How long a build or catch-up works before it lets the event loop run: a fixed count of items was 20-40 ms
 * on an idle machine but 400-800 ms on a loaded one (a /healthz stall after every large import).
 */
const SLICE_MS = 8;

/** Lets the event loop run when the current slice has used its time; returns the next slice's start. */
async function yieldIfDue(sliceStart: number): Promise<number> {
  if (performance.now() - sliceStart < SLICE_MS) return sliceStart;
  await new Promise((resolve) => setImmediate(resolve));
  return performance.now();
}

export class ItemMirror<T extends SchemaItem | ConceptItem> {
  private fresh: T[] = [];
  private freshIds = new Map<string, number>();
  /** Sequence numbers above `seq` of changes already applied (this process's own): sync skips them. */
  private readonly own = new Set<number>();
  /** Grows with every change applied: what caches derived from the items compare. */
  generation = 0;

  private constructor(
    private readonly audit: AuditStore,
    private readonly shape: (item: T) => T,
    readonly projectId: string,
    readonly kind: ItemKind,
    /** Items in id order; `fresh` holds new ones until the next read merges them in. */
    private ordered: T[],
    /** Every audit event up to this one is reflected. */
    private seq: number,
    /** Item id -> index in `ordered` (made with it, a slice at a time, see `build`). */
    private position: Map<string, number>,
  ) {}

  /**
   * Reads the project's items a chunk per turn of the event loop, so that building the mirror of a
   * large project never stalls other requests. `early` are this process's changes committed meanwhile.
   */
  static async build<T extends SchemaItem | ConceptItem>(
    store: ItemStore<T>,
    audit: AuditStore,
    shape: (item: T) => T,
    projectId: string,
    kind: ItemKind,
    early: [number, T][],
  ): Promise<ItemMirror<T>> {
    // The log position first: a change committed during the scan is then seen twice, which is harmless.
    const seq = audit.lastSeq();
    const items: T[] = [];
    const position = new Map<string, number>();
    let slice = performance.now();
    for (let chunk = store.chunk(projectId, undefined, CHUNK); chunk.length > 0; ) {
      for (const item of chunk) {
        position.set(item.id, items.length);
        items.push(shape(item));
      }
      if (chunk.length < CHUNK) break;
      slice = await yieldIfDue(slice);
      chunk = store.chunk(projectId, items[items.length - 1]!.id, CHUNK);
    }
    const mirror = new ItemMirror(audit, shape, projectId, kind, items, seq, position);
    for (const [s, item] of early) mirror.applyOwn(s, item);
    early.length = 0;
    await mirror.catchUp();
    return mirror;
  }

  /** A change this process committed, with its audit sequence number. */
  applyOwn(seq: number, item: T): void {
    if (seq > this.seq) this.own.add(seq);
    this.apply(item);
  }

  /** Applies the changes other processes committed since the last call. */
  sync(): void {
    this.syncUpTo(this.audit.lastSeq());
  }

  /**
   * Like `sync`, but reads a long run of others' changes (an import of 400,000 rows by a data worker or
   * the CLI) a slice of time per turn of the event loop, so that catching up never stalls other requests.
   */
  async catchUp(): Promise<void> {
    while (this.catching) await this.catching;
    if (this.audit.lastSeq() - this.seq <= CHUNK) {
      this.sync();
      return;
    }
    const run = (async () => {
      let slice = performance.now();
      for (let last = this.audit.lastSeq(); last - this.seq > CHUNK; last = this.audit.lastSeq()) {
        this.syncUpTo(this.seq + CHUNK);
        slice = await yieldIfDue(slice);
      }
      this.sync();
    })();
    this.catching = run;
    try {
      await run;
    } finally {
      if (this.catching === run) this.catching = undefined;
    }
  }

  private catching: Promise<void> | undefined;

  private syncUpTo(last: number): void {
    if (last <= this.seq) return;
    let mine = 0;
    for (const s of this.own) if (s <= last) mine++;
    if (last - this.seq > mine) {
      for (let s = this.seq + 1; s <= last; s++) {
        if (this.own.delete(s)) continue;
        const event = this.audit.get(s);
        if (event?.project_id === this.projectId && event.item_kind === this.kind)
          this.apply(event.after as T);
      }
    }
    // Own changes at or below `last` are applied; those above stay noted for the next call.
    for (const s of this.own) if (s <= last) this.own.delete(s);
    this.seq = last;
  }

  /** Every item in id order, in one shape (shape.ts), without audit_log. */
  items(): readonly T[] {
    if (this.fresh.length > 0) this.merge();
    return this.ordered;
  }

  get size(): number {
    return this.ordered.length + this.fresh.length;
  }

  /** Keeps the newer of two versions: the same change may arrive both ways, and in either order. */
  private apply(raw: T): void {
    const item = this.shape(raw);
    const at = this.position.get(item.id);
    if (at !== undefined) {
      if (this.ordered[at]!.version >= item.version) return;
      this.ordered[at] = item;
    } else {
      const f = this.freshIds.get(item.id);
      if (f !== undefined) {
        if (this.fresh[f]!.version >= item.version) return;
        this.fresh[f] = item;
      } else {
        this.freshIds.set(item.id, this.fresh.length);
        this.fresh.push(item);
      }
    }
    this.generation++;
  }

  /** New items are merged in one pass: a push of 10,000 must not cost 10,000 insertions into 100,000. */
  private merge(): void {
    const fresh = this.fresh.sort((a, b) => compareKeys(a.id, b.id));
    const out: T[] = new Array(this.ordered.length + fresh.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < this.ordered.length || j < fresh.length) {
      const a = this.ordered[i];
      const b = fresh[j];
      if (b === undefined || (a !== undefined && compareKeys(a.id, b.id) < 0)) {
        out[k++] = a as T;
        i++;
      } else {
        out[k++] = b;
        j++;
      }
    }
    this.ordered = out;
    this.position = new Map(out.map((item, n) => [item.id, n]));
    this.fresh = [];
    this.freshIds = new Map();
  }
}

/** How many project mirrors of each kind stay in memory; the least recently used one goes first. */
const MAX_MIRRORS = 16;

interface Entry<T extends SchemaItem | ConceptItem> {
  ready: Promise<ItemMirror<T>>;
  mirror?: ItemMirror<T>;
  /** Own changes committed while the mirror is being built. */
  early: [number, T][];
}

/** The mirrors of one kind of item, one per project, made on first use and synced on every use. */
export class MirrorCache<T extends SchemaItem | ConceptItem> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly building = new Set<Promise<void>>();

  constructor(
    private readonly store: ItemStore<T>,
    private readonly audit: AuditStore,
    private readonly kind: ItemKind,
    /** Copies an item into the one shape every mirrored item has (shape.ts). */
    private readonly shape: (item: T) => T,
  ) {}

  /** The project's mirror, brought up to date (built first if needed). Call outside a write transaction. */
  async of(projectId: string): Promise<ItemMirror<T>> {
    const mirror = await this.entry(projectId).ready;
    await mirror.catchUp();
    return mirror;
  }

  /**
   * Starts building the project's mirror in the background, if there is none: after a push, so that
   * the reviewers who come next find it ready.
   */
  warm(projectId: string): void {
    if (!this.entries.has(projectId)) this.entry(projectId);
  }

  /** A change this process has just committed (see env.ts); mirrors nobody asked for ignore it. */
  committed(seq: number, event: AuditEvent): void {
    const entry = this.entries.get(event.project_id);
    if (!entry) return;
    const item = event.after as T;
    if (entry.mirror) entry.mirror.applyOwn(seq, item);
    else entry.early.push([seq, item]);
  }

  /** Resolves when no mirror is being built: the environment may then be closed. */
  async settled(): Promise<void> {
    while (this.building.size > 0) await Promise.all([...this.building]);
  }

  private entry(projectId: string): Entry<T> {
    let entry = this.entries.get(projectId);
    if (entry) {
      this.entries.delete(projectId);
    } else {
      const early: [number, T][] = [];
      const ready = ItemMirror.build(this.store, this.audit, this.shape, projectId, this.kind, early);
      const made: Entry<T> = { ready, early };
      entry = made;
      const settled: Promise<void> = ready.then(
        (mirror) => {
          made.mirror = mirror;
          this.building.delete(settled);
        },
        () => {
          // A failed build is not kept: the next request tries again.
          this.building.delete(settled);
          if (this.entries.get(projectId) === made) this.entries.delete(projectId);
        },
      );
      this.building.add(settled);
      if (this.entries.size >= MAX_MIRRORS) this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(projectId, entry);
    return entry;
  }
}
