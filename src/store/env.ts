// Opens the one LMDB environment in the data directory and the named database behind each store.
import { mkdirSync } from "node:fs";
import { open } from "lmdb";
import { KeyStore } from "./api-keys.js";
import { AuditStore } from "./audit.js";
import { ItemStore } from "./items.js";
import { MirrorCache } from "./mirror.js";
import { ProjectStore } from "./projects.js";
import { RunStore } from "./runs.js";
import { conceptShape, schemaShape } from "./shape.js";
import type { AuditEvent, ConceptItem, SchemaItem } from "./types.js";

export interface Stores {
  /** Where the environment is, and how it acknowledges writes: a worker thread opens it the same way. */
  dataDir: string;
  durability: Durability;
  projects: ProjectStore;
  keys: KeyStore;
  schemaItems: ItemStore<SchemaItem>;
  conceptItems: ItemStore<ConceptItem>;
  runs: RunStore;
  audit: AuditStore;
  /** In-memory copies of each project's items, for listing, stats and decision overlays (mirror.ts). */
  mirrors: { schema: MirrorCache<SchemaItem>; concept: MirrorCache<ConceptItem> };
  /**
   * Runs `fn` in a write transaction and resolves with its result once the transaction has committed
   * and been flushed to disk.
   * If `fn` throws, its writes are rolled back and the promise rejects with that error.
   */
  write<R>(fn: () => R): Promise<R>;
  /**
   * Makes the next read see everything committed so far. A handle's reads share one snapshot, which lmdb
   * renews after this handle's own writes and otherwise on a timer turn: another handle's writes (the
   * server's, when this is a data worker's) stay unseen until then.
   */
  resetReads(): void;
  /** Waits for pending writes, then closes the environment. */
  close(): Promise<void>;
}

/**
 * When a write is acknowledged. `flush` (default): after the commit has been fsynced, so it survives
 * power loss. `commit`: as soon as LMDB has committed, before the fsync that lmdb's overlapping sync runs
 * in the background: faster under light load, survives a process crash, but a power loss may lose the
 * last acknowledged writes (the database itself stays consistent).
 */
export type Durability = "flush" | "commit";

export interface StoreOptions {
  durability?: Durability;
}

export function openStores(dataDir: string, options: StoreOptions = {}): Stores {
  const durability = options.durability ?? "flush";
  const waitForFlush = durability === "flush";
  mkdirSync(dataDir, { recursive: true });
  // No object cache: the CLI may add or revoke keys in another process while the server runs,
  // and LMDB reads are already memory-mapped and cheap.
  const root = open({ path: dataDir, maxDbs: 16 });
  const db = <V>(name: string) => root.openDB<V, string>({ name });

  const schemaItems = new ItemStore<SchemaItem>(
    db("schema_items"),
    db("schema_items_by_natural_key"),
    (i) => [i.source_table ?? "", i.source_column],
  );
  const conceptItems = new ItemStore<ConceptItem>(
    db("concept_items"),
    db("concept_items_by_natural_key"),
    (i) => [i.source_column ?? "", i.source_code],
  );
  const audit = new AuditStore(
    root.openDB<AuditEvent, number>({ name: "audit_log", keyEncoding: "uint32" }),
    db("audit_events"),
  );
  const mirrors = {
    schema: new MirrorCache(schemaItems, audit, "schema", schemaShape),
    concept: new MirrorCache(conceptItems, audit, "concept", conceptShape),
  };
  const write = <R>(fn: () => R): Promise<R> => {
    let failure: { error: unknown } | undefined;
    let changes: [number, AuditEvent][] = [];
    // lmdb batches the callbacks of one event turn into one transaction; a child transaction per
    // callback lets one failed request roll back alone instead of aborting its neighbours.
    const committed = root.transaction(() => {
      audit.capture = [];
      try {
        const result = root.transactionSync(fn);
        changes = audit.capture;
        return result;
      } catch (error) {
        failure = { error };
        return undefined;
      } finally {
        audit.capture = undefined;
      }
    });
    return committed.then(async (result) => {
      if (failure) throw failure.error;
      // Committed: the mirrors may show it now (they would find it in the audit log anyway, slower).
      for (const [seq, event] of changes) mirrors[event.item_kind].committed(seq, event);
      // With lmdb's default overlapping sync a commit resolves before its fsync; flushes cover whole
      // batches, so waiting for them costs latency more than throughput.
      if (waitForFlush) await root.flushed;
      return result as R;
    });
  };
  return {
    dataDir,
    durability,
    projects: new ProjectStore(db("projects")),
    keys: new KeyStore(db("api_keys"), db("api_key_hashes")),
    schemaItems,
    conceptItems,
    runs: new RunStore(db("runs"), db("runs_by_time"), write),
    audit,
    mirrors,
    write,
    resetReads: () => root.resetReadTxn(),
    // A mirror still reading in the background must finish before the environment goes away.
    close: async () => {
      await Promise.all([mirrors.schema.settled(), mirrors.concept.settled()]);
      await root.close();
    },
  };
}
