// The page's only way to the server: fetch with the signed-in key, JSON in and out, and the API's error
// bodies turned into one error type the views can show.

export type Kind = "schema-mapping" | "concept-mapping";

export interface SchemaItem {
  id: string;
  source_table: string | null;
  source_column: string;
  target_table: string | null;
  target_column: string | null;
  confidence: number | null;
  status: string;
  version: number;
  created_at: string;
  updated_at: string;
  reviewed_at: string | null;
  comment: string | null;
  /** Ranked candidate target columns, best first (crossmap suggest --schema); keys 1-9 choose one. */
  candidates?: { target_table: string; target_column: string; score: number | null }[] | null;
}

export interface ConceptItem {
  id: string;
  source_column: string | null;
  source_code: string;
  source_description: string | null;
  target_concept_id: number | null;
  target_concept_name: string | null;
  target_vocabulary_id: string | null;
  confidence: number | null;
  method: string;
  version: number;
  created_at: string;
  updated_at: string;
  reviewed_at: string | null;
  source_vocabulary_id: string | null;
  source_frequency: number | null;
  equivalence: string | null;
  comment: string | null;
  revalidation: { reason: string } | null;
  /** Ranked candidate concepts, best first (crossmap suggest); keys 1-9 choose one. */
  candidates?: Candidate[] | null;
}

export interface Candidate {
  concept_id: number;
  concept_name: string | null;
  vocabulary_id: string | null;
  domain_id: string | null;
  score: number | null;
  match: string | null;
}

export type Item = SchemaItem | ConceptItem;

export interface Page {
  items: Item[];
  total: number;
  limit: number;
  offset: number;
}

export interface Me {
  key_id: string;
  name: string | null;
  admin: boolean;
  projects: { id: string; name: string; scope: "read" | "write" | "admin" }[];
}

export interface Project {
  id: string;
  name: string;
  target_model: string | null;
  vocabularies: string[];
  description: string | null;
}

export interface Stats {
  total: number;
  by_status?: Record<string, number>;
  by_method?: Record<string, number>;
  reviewed: number;
  reviewed_share: number;
  source_frequency_total: number | null;
  covered_frequency: number | null;
  coverage_share: number | null;
}

export interface AuditEvent {
  item_id: string;
  version: number;
  action: string;
  key_id: string | null;
  reviewer: string | null;
  at: string;
  reverted_to?: number;
  /** `choose` events: the 1-based position of the candidate chosen. */
  candidate?: number;
  before: Item | null;
  after: Item;
}

export interface FoundConcept {
  concept_id: number;
  concept_name: string;
  domain_id: string;
  vocabulary_id: string;
  concept_class_id: string;
  standard_concept: string | null;
  concept_code: string;
  invalid_reason: string | null;
  match: string;
}

export interface BulkResult {
  applied: number;
  failed: number;
  results: { id: string; status: number; item?: Item; detail?: unknown }[];
}

/** An answer other than 2xx: its status and the API's `detail` (a string, or the 422 list). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
  ) {
    super(ApiError.describe(status, detail));
  }

  static describe(status: number, detail: unknown): string {
    if (typeof detail === "string") return detail;
    if (Array.isArray(detail)) {
      return detail
        .map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).join(".")}: ${d.msg ?? ""}`)
        .join("; ");
    }
    return `The server answered ${status}`;
  }
}

const KEY = "crossmap.key";

/** The key lives in sessionStorage only: gone when the tab closes, never in a URL or a cookie. */
export const session = {
  get: (): string | null => sessionStorage.getItem(KEY),
  set: (key: string) => sessionStorage.setItem(KEY, key),
  clear: () => sessionStorage.removeItem(KEY),
};

export interface Answer<T> {
  body: T;
  etag: string | null;
}

export async function call<T>(
  method: "GET" | "POST",
  path: string,
  options: { body?: unknown; ifMatch?: number; key?: string } = {},
): Promise<Answer<T>> {
  const key = options.key ?? session.get();
  const headers: Record<string, string> = { accept: "application/json" };
  if (key) headers.authorization = `Bearer ${key}`;
  if (options.ifMatch !== undefined) headers["if-match"] = `"${options.ifMatch}"`;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  const res = await fetch(path, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    throw new ApiError(res.status, (json as { detail?: unknown } | undefined)?.detail ?? text);
  }
  return { body: json as T, etag: res.headers.get("etag") };
}

export const get = async <T>(path: string): Promise<T> => (await call<T>("GET", path)).body;

/** A query string of the set values only. */
export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}

export const isConcept = (item: Item): item is ConceptItem => "source_code" in item;

/** Whether an item awaits review: schema status needs_review, concept method review. */
export const state = (item: Item): string => (isConcept(item) ? item.method : item.status);
