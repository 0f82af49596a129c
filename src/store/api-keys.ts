// API keys: random secrets shown once, stored only as a sha256 hash, scoped to one project or admin.
import { createHash, randomBytes } from "node:crypto";
import type { Database } from "lmdb";
import { isStorableId, nowIso } from "./keys-util.js";
import type { ApiKeyRecord, KeyScope } from "./types.js";

/** What `keys list` shows: everything except the hash. */
export type PublicKey = Omit<ApiKeyRecord, "hash">;

export const hashSecret = (secret: string): string => createHash("sha256").update(secret).digest("hex");

export const toPublicKey = ({ hash: _hash, ...rest }: ApiKeyRecord): PublicKey => ({
  ...rest,
  name: rest.name ?? null,
});

/** How many secrets `authenticate` remembers the key id of; beyond that it starts over. */
export const KEY_ID_CACHE_SIZE = 1024;

export class KeyStore {
  /**
   * secret -> key id, for secrets that have authenticated. Which key a secret belongs to never changes,
   * so this skips the sha256 and the hash lookup; whether the key is still valid is read from LMDB on
   * every call, so a revocation by any process (the CLI too) counts on the next request.
   */
  private readonly idBySecret = new Map<string, string>();

  constructor(
    private readonly byId: Database<ApiKeyRecord, string>,
    /** hash -> key id; a lookup per request must not scan. */
    private readonly byHash: Database<string, string>,
  ) {}

  /** The key a secret belongs to, if it exists and is not revoked. */
  authenticate(secret: string): ApiKeyRecord | undefined {
    let id = this.idBySecret.get(secret);
    if (id === undefined) {
      id = this.byHash.get(hashSecret(secret));
      if (id === undefined) return undefined;
      // Only secrets that matched a key are kept, so random guesses cannot fill the map.
      if (this.idBySecret.size >= KEY_ID_CACHE_SIZE) this.idBySecret.clear();
      this.idBySecret.set(secret, id);
    }
    const key = this.byId.get(id);
    return key && key.revoked_at === null ? key : undefined;
  }

  get(id: string): ApiKeyRecord | undefined {
    return isStorableId(id) ? this.byId.get(id) : undefined;
  }

  list(): PublicKey[] {
    return [...this.byId.getRange().map(({ value }) => toPublicKey(value))];
  }

  isEmpty(): boolean {
    return this.byId.getKeysCount() === 0;
  }

  /** Call inside a write transaction. The secret is returned here and never again. */
  create(
    scope: KeyScope,
    projectId: string | null,
    name: string | null = null,
  ): { key: PublicKey; secret: string } {
    const id = `key_${randomBytes(6).toString("hex")}`;
    // 32 random bytes: guessing is hopeless, and the prefix makes leaked keys easy to grep for.
    const secret = `cmk_${randomBytes(32).toString("base64url")}`;
    const record: ApiKeyRecord = {
      id,
      scope,
      project_id: scope === "admin" ? null : projectId,
      hash: hashSecret(secret),
      created_at: nowIso(),
      revoked_at: null,
      name,
    };
    this.byId.put(id, record);
    this.byHash.put(record.hash, id);
    return { key: toPublicKey(record), secret };
  }

  /** Call inside a write transaction. Revoking twice keeps the first time. */
  revoke(id: string): PublicKey | undefined {
    const key = this.get(id);
    if (!key) return undefined;
    if (key.revoked_at !== null) return toPublicKey(key);
    const revoked = { ...key, revoked_at: nowIso() };
    this.byId.put(id, revoked);
    return toPublicKey(revoked);
  }
}
