// Batched writes into the index being built: many puts per synchronous transaction (one commit per batch,
// not per row), with MDB_APPEND where the caller guarantees ascending keys.
import type { Database, Key, PutOptions, RootDatabase } from "lmdb";

const APPEND: PutOptions = { append: true };

export class BatchWriter {
  private pending: { db: Database<Buffer, Key>; key: Key; value: Buffer; append: boolean }[] = [];

  constructor(
    private readonly env: RootDatabase,
    private readonly batchSize = 50_000,
  ) {}

  /** `value` must not be modified afterwards (it is written at the next flush). */
  put(db: Database<Buffer, Key>, key: Key, value: Buffer, append: boolean): void {
    this.pending.push({ db, key, value, append });
    if (this.pending.length >= this.batchSize) this.flush();
  }

  flush(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.env.transactionSync(() => {
      for (const p of batch) {
        if (p.append) p.db.putSync(p.key, p.value, APPEND);
        else p.db.putSync(p.key, p.value);
      }
    });
  }
}
