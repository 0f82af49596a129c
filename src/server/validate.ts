// Turns zod issues into the spec's 422 entries, worded the way FastAPI/pydantic words them so that
// clients written against the original service keep recognising them.
import type { z } from "zod";
import type { Problem } from "../errors.js";
import { INTEGER_MESSAGE } from "../review/item-fields.js";

export type Location = "body" | "query" | "path";

/** Integer schemas' type error (defined with the item fields, see there). */
export { INTEGER_MESSAGE };

export function toProblem(issue: z.core.$ZodIssue, where: Location): Problem {
  const path: (string | number)[] = [
    where,
    ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p)),
  ];
  const [message, code] = describe(issue);
  return { path, message, code };
}

/** Like toProblem, but an object's unknown keys (strict schemas) are one entry each, located at the key. */
export function toProblems(issue: z.core.$ZodIssue, where: Location): Problem[] {
  if (issue.code !== "unrecognized_keys") return [toProblem(issue, where)];
  const at = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
  return issue.keys.map((key) => ({
    path: [where, ...at, key],
    message: "extra fields not permitted",
    code: "value_error.extra",
  }));
}

const TYPE_WORDS: Record<string, [string, string]> = {
  string: ["str type expected", "type_error.str"],
  int: ["value is not a valid integer", "type_error.integer"],
  number: ["value is not a valid float", "type_error.float"],
  boolean: ["value is not a valid boolean", "type_error.bool"],
  object: ["value is not a valid dict", "type_error.dict"],
  array: ["value is not a valid list", "type_error.list"],
};

function describe(issue: z.core.$ZodIssue): [string, string] {
  const input = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case "invalid_type": {
      const received = (issue as { received?: string }).received;
      if (input === undefined && received !== "NaN") return ["field required", "value_error.missing"];
      if (input === null && received !== "NaN") {
        return ["none is not an allowed value", "type_error.none.not_allowed"];
      }
      if (issue.message === INTEGER_MESSAGE) return [INTEGER_MESSAGE, "type_error.integer"];
      return TYPE_WORDS[issue.expected] ?? [`${issue.expected} expected`, `type_error.${issue.expected}`];
    }
    case "invalid_value": {
      const permitted = issue.values.map((v) => `'${String(v)}'`).join(", ");
      return [`value is not a valid enumeration member; permitted: ${permitted}`, "type_error.enum"];
    }
    case "too_small":
      return bound(issue.origin, issue.minimum, issue.inclusive !== false, "min");
    case "too_big":
      return bound(issue.origin, issue.maximum, issue.inclusive !== false, "max");
    case "invalid_format":
      return [issue.message ?? "invalid format", "value_error.str.regex"];
    default:
      return [issue.message ?? "invalid value", "value_error"];
  }
}

function bound(
  origin: string,
  limit: number | bigint,
  inclusive: boolean,
  side: "min" | "max",
): [string, string] {
  const n = String(limit);
  if (origin === "string") {
    return side === "min"
      ? [`ensure this value has at least ${n} characters`, "value_error.any_str.min_length"]
      : [`ensure this value has at most ${n} characters`, "value_error.any_str.max_length"];
  }
  if (origin === "array") {
    return side === "min"
      ? [`ensure this value has at least ${n} items`, "value_error.list.min_items"]
      : [`ensure this value has at most ${n} items`, "value_error.list.max_items"];
  }
  if (side === "min") {
    return inclusive
      ? [`ensure this value is greater than or equal to ${n}`, "value_error.number.not_ge"]
      : [`ensure this value is greater than ${n}`, "value_error.number.not_gt"];
  }
  return inclusive
    ? [`ensure this value is less than or equal to ${n}`, "value_error.number.not_le"]
    : [`ensure this value is less than ${n}`, "value_error.number.not_lt"];
}
