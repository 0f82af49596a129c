// integer_id: a deterministic positive integer from any string id (a UUID, "Patient/123", "urn:uuid:..."),
// for targets whose keys are integers. The same function serves ids and references, so a reference and the
// resource it points at always meet on the same integer.

import { createHash } from "../hash.js";
import { normalizeInteger } from "./casts.js";
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { describeValue, scalarKey } from "./describe.js";
import { fail, notice, type TransformDefinition, type Unmappable } from "./types.js";

const config = lazySchema((z) =>
  z
    .object({
      /**
       * Width of the result: 1 .. 2^bits - 1. Default 63 (a signed 64-bit BIGINT, exact here as bigint):
       * hashing n distinct ids collides with probability about n^2 / 2^(bits+1), which at 31 bits is already
       * ~50% for 55,000 patients, i.e. two patients silently merged. Use 31 only for 32-bit INTEGER keys
       * and small data.
       */
      bits: z.number().int().min(16).max(63).optional(),
      /**
       * Prefixes a decimal id may carry, e.g. "measurement-" for the ids the OMOP -> FHIR crossmap gives rows
       * of tables that share a resource type: "measurement-12" reads as 12. Ids with another prefix are hashed.
       */
      prefix: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    })
    .strict(),
);

// Decimal ids as OMOP writes them, negative ones included (real exports have them); "-0" and leading zeros
// are not canonical, so they are hashed rather than read as another id's number.
const CANONICAL = /^(?:0|-?[1-9]\d*)$/;
const URN = /^urn:(?:uuid|oid):/i;

/** The id part of an id or a reference: after the last "/" (dropping `_history/n`) or after `urn:uuid:`. */
export function idPart(s: string): string {
  const trimmed = s.trim();
  // A query on an absolute reference (`.../Patient/7?_format=json`) is no part of the id.
  const q = trimmed.indexOf("?");
  const t = q >= 0 ? trimmed.slice(0, q) : trimmed;
  if (URN.test(t)) return t.replace(URN, "");
  const parts = t.split("/");
  const h = parts.lastIndexOf("_history");
  const usable = h > 0 ? parts.slice(0, h) : parts;
  return usable[usable.length - 1] ?? t;
}

/**
 * A stable integer for an id: a decimal id within ±(2^bits - 1) is kept as is (ids survive a round trip,
 * negative ones too); others are hashed into 1 .. 2^bits - 1.
 */
export function stableInteger(id: string, bits = 63): number | bigint {
  const max = (1n << BigInt(bits)) - 1n;
  if (CANONICAL.test(id) && id.length <= 20) {
    const n = BigInt(id);
    if (n <= max && n >= -max) return normalizeInteger(n);
  }
  const digest = createHash("sha256").update(id, "utf8").digest();
  return normalizeInteger((digest.readBigUInt64BE(0) % max) + 1n);
}

/** The integer of an id or a reference, after the first of `prefixes` it carries; undefined for no id. */
const CONDITIONAL = /^[A-Z][A-Za-z]+\?/;

/**
 * A reference that names no id in the data, said instead of hashed (its hash would be a key no row has):
 * to a contained resource (`#p1`), which has no id outside its container, or conditional
 * (`Organization?identifier=...|...`, as Synthea's transaction Bundles write organisations and
 * practitioners), which a FHIR server resolves by search. Nothing is written, with a warning: the data is
 * legitimate, the link is what cannot be kept. Undefined for anything else.
 */
export function namesNoId(value: string): Unmappable | undefined {
  const t = value.trim();
  if (t.charCodeAt(0) === 35)
    return notice(
      "unresolved_reference",
      `"${t}" refers to a contained resource, which has no id of its own; the link is not written`,
    );
  if (CONDITIONAL.test(t))
    return notice(
      "unresolved_reference",
      `"${t}" is a conditional reference (a FHIR server resolves it by search); it names no id in the data, so the link is not written`,
    );
  return undefined;
}

export function integerOf(
  value: string,
  prefixes: readonly string[],
  bits = 63,
): number | bigint | undefined {
  const id = idPart(value);
  if (id === "") return undefined;
  for (const p of prefixes) {
    if (id.startsWith(p) && CANONICAL.test(id.slice(p.length)))
      return stableInteger(id.slice(p.length), bits);
  }
  return stableInteger(id, bits);
}

export const integerId: TransformDefinition<ConfigOf<typeof config>> = {
  get config() {
    return config();
  },
  description:
    "A stable positive integer from an id or reference: decimal ids kept, anything else hashed (SHA-256).",
  create: (cfg) => {
    const bits = cfg.bits ?? 63;
    const prefixes = cfg.prefix === undefined ? [] : [cfg.prefix].flat();
    return (v) => {
      const s = scalarKey(v);
      const unresolved = s === undefined ? undefined : namesNoId(s);
      if (unresolved !== undefined) return unresolved;
      const n = s === undefined ? undefined : integerOf(s, prefixes, bits);
      return n ?? fail("invalid_value", `${describeValue(v)} is not an id or a reference`);
    };
  },
};
