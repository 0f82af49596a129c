// passthrough, str, int, float, bool: strict conversions. Nothing is rounded, truncated or guessed; a value
// that does not convert is an `invalid_value` issue. Integers beyond 2^53 are kept exact as bigint.
import { lazySchema } from "./config-schema.js";
import { describeValue } from "./describe.js";
import { fail, type TransformDefinition } from "./types.js";

const none = lazySchema((z) => z.object({}).strict());

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const MAX = BigInt(Number.MAX_SAFE_INTEGER);
const MIN = BigInt(Number.MIN_SAFE_INTEGER);

/** number when it is exact, bigint beyond 2^53. */
export function normalizeInteger(b: bigint): number | bigint {
  return b <= MAX && b >= MIN ? Number(b) : b;
}

export function toInteger(v: unknown): number | bigint | undefined {
  switch (typeof v) {
    case "number":
      return Number.isInteger(v) ? v + 0 : undefined;
    case "bigint":
      return normalizeInteger(v);
    case "string": {
      const s = v.trim();
      if (INTEGER.test(s)) return s.length < 16 ? Number(s) : normalizeInteger(BigInt(s));
      if (DECIMAL.test(s)) {
        const n = Number(s);
        return Number.isSafeInteger(n) ? n : undefined;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

export function toFloat(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string") {
    const s = v.trim();
    return DECIMAL.test(s) ? Number(s) : undefined;
  }
  return undefined;
}

const TRUE = new Set(["true", "t", "yes", "y", "1"]);
const FALSE = new Set(["false", "f", "no", "n", "0"]);

export const passthrough: TransformDefinition = {
  get config() {
    return none();
  },
  description: "Copy the value unchanged.",
  create: () => (v) => v,
};

export const str: TransformDefinition = {
  get config() {
    return none();
  },
  description: "Convert a string, number, bigint or boolean to a string; objects are an issue.",
  create: () => (v) => {
    switch (typeof v) {
      case "string":
        return v;
      case "number":
        return Number.isFinite(v) ? String(v) : fail("invalid_value", `cannot convert ${v} to a string`);
      case "bigint":
      case "boolean":
        return String(v);
      default:
        return fail("invalid_value", `cannot convert ${describeValue(v)} to a string`);
    }
  },
};

export const int: TransformDefinition = {
  get config() {
    return none();
  },
  description:
    "Convert to an integer; exact beyond 2^53; a fraction or non-number is an issue, never truncated.",
  create: () => (v) => {
    const n = toInteger(v);
    return n !== undefined ? n : fail("invalid_value", `${describeValue(v)} is not an integer`);
  },
};

export const float: TransformDefinition = {
  get config() {
    return none();
  },
  description: "Convert to a finite number; anything else is an issue.",
  create: () => (v) => {
    const n = toFloat(v);
    return n !== undefined ? n : fail("invalid_value", `${describeValue(v)} is not a number`);
  },
};

export const bool: TransformDefinition = {
  get config() {
    return none();
  },
  description:
    "Convert true/false, 1/0, yes/no, y/n, t/f (any case) to a boolean; anything else is an issue.",
  create: () => (v) => {
    if (typeof v === "boolean") return v;
    const s =
      typeof v === "string"
        ? v.trim().toLowerCase()
        : typeof v === "number" || typeof v === "bigint"
          ? String(v)
          : undefined;
    if (s !== undefined && TRUE.has(s)) return true;
    if (s !== undefined && FALSE.has(s)) return false;
    return fail("invalid_value", `${describeValue(v)} is not a boolean`);
  },
};
