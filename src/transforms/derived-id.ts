// Derived ids: a pure function of some values, a salt and an element index, so a record produced by fan-out
// gets the same id in every run, and any record that knows the same values can reference it. Shared by an
// output's `id` rule (crossmap/outputs) and the `derived_id` transform.

import { createHash, hashHex } from "../hash.js";
import { normalizeInteger } from "./casts.js";
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { describeValue, scalarKey } from "./describe.js";
import { fail, type TransformDefinition } from "./types.js";

export type IdFormat = "uuid" | "integer" | "text";

const URN = /^urn:(?:uuid|oid):/i;
/** `Patient/123`, `http://x/fhir/Patient/123`, `.../Patient/123/_history/2`: the id is what a reference names. */
const REFERENCE = /(?:^|\/)[A-Z][A-Za-z]+\/([A-Za-z0-9\-.]{1,64})(?:\/_history\/[A-Za-z0-9\-.]{1,64})?$/;
const FHIR_ID = /^[A-Za-z0-9\-.]{1,64}$/;
const MAX63 = (1n << 63n) - 1n;

/** A value as it counts for an id: its string form, and a reference by the id it names. */
export function idValue(v: unknown): string | undefined {
  const s = scalarKey(v);
  if (s === undefined) return undefined;
  const t = s.trim();
  if (t === "") return undefined;
  if (URN.test(t)) return t.replace(URN, "");
  const m = REFERENCE.exec(t);
  return m ? (m[1] as string) : t;
}

/**
 * The id of `values` (absent ones count as empty; all absent -> undefined), `salt` and, for an element of a
 * `for_each`, its index. uuid: SHA-1 in the layout of a version 5 UUID; integer: 1 .. 2^63-1 (SHA-256);
 * text: the values and index joined with "-" (undefined when that is not a valid FHIR id).
 */
export function deriveId(
  values: readonly unknown[],
  salt: string,
  format: IdFormat,
  index?: number,
  /** Take the values' text as it is (business identifiers), not a reference's id part. */
  verbatim = false,
): string | number | bigint | undefined {
  const parts: string[] = [];
  let any = false;
  for (const v of values) {
    const s = verbatim ? scalarKey(v)?.trim() || undefined : idValue(v);
    if (s !== undefined) any = true;
    parts.push(s ?? "");
  }
  if (!any) return undefined;
  if (index !== undefined) parts.push(String(index));
  if (format === "text") {
    const text = parts.filter((p) => p !== "").join("-");
    return FHIR_ID.test(text) ? text : undefined;
  }
  const input = `${salt}\u0000${parts.join("\u0000")}`;
  if (format === "integer") {
    const digest = createHash("sha256").update(input, "utf8").digest();
    return normalizeInteger((digest.readBigUInt64BE(0) % MAX63) + 1n);
  }
  const h = hashHex("sha1", input);
  const variant = ((Number.parseInt(h[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const config = lazySchema((z) =>
  z
    .object({
      /** Mixed into the id, so one source gives different ids for different derived records. */
      salt: z.string(),
      format: z.enum(["uuid", "integer", "text"]).optional(),
      /** Further source paths whose values are part of the id, after the transformed value. */
      with: z.array(z.string().min(1)).optional(),
      /** Written around the id, e.g. `urn:uuid:{value}` or `Practitioner/{value}`. */
      pattern: z
        .string()
        .regex(/\{value\}/, "must contain {value}")
        .optional(),
    })
    .strict(),
);

export const derivedId: TransformDefinition<ConfigOf<typeof config>> = {
  get config() {
    return config();
  },
  description:
    "The id an output's `id` rule derives from the same values and salt (uuid, integer or text), e.g. to reference a fanned-out record.",
  create: (cfg, ctx) => {
    const format = cfg.format ?? "uuid";
    const more = (cfg.with ?? []).map((p) => ctx.compileSourcePath(p));
    const [before, after] = cfg.pattern ? cfg.pattern.split("{value}", 2) : ["", ""];
    return (v, record) => {
      const values = more.length === 0 ? [v] : [v, ...more.map((g) => g(record))];
      const id = deriveId(values, cfg.salt, format);
      if (id === undefined) return fail("invalid_value", `${describeValue(v)} gives no ${format} id`);
      return cfg.pattern ? `${before}${String(id)}${after}` : id;
    };
  },
};
