// Batched writes into the index being built: many puts per synchronous transaction (one commit per batch,
// not per row), with MDB_APPEND where the caller guarantees ascending keys.
import type { Database, Key, PutOptions, RootDatabase } from "lmdb";

const APPEND: PutOptions = { append: true };

export class BatchWriter {
  // Parallel arrays rather than an object per put: millions of puts pass through here.
  private dbs: Database<Buffer | string, Key>[] = [];
  private keys: Key[] = [];
  private values: (Buffer | string)[] = [];
  private appends: boolean[] = [];

  constructor(
    private readonly env: RootDatabase,
    private readonly batchSize = 50_000,
  ) {}

  /** `value` must not be modified afterwards (it is written at the next flush). */
  put(db: Database<Buffer | string, Key>, key: Key, value: Buffer | string, append: boolean): void {
    this.dbs.push(db);
    this.keys.push(key);
    this.values.push(value);
    this.appends.push(append);
    if (this.keys.length >= this.batchSize) this.flush();
  }

  flush(): void {
    const { dbs, keys, values, appends } = this;
    if (keys.length === 0) return;
    this.env.transactionSync(() => {
      for (let i = 0; i < keys.length; i++) {
        if (appends[i]) dbs[i]!.putSync(keys[i]!, values[i]!, APPEND);
        else dbs[i]!.putSync(keys[i]!, values[i]!);
      }
    });
    this.dbs = [];
    this.keys = [];
    this.values = [];
    this.appends = [];
  }
}
