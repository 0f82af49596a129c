// Short, quoted renderings of input values for issue messages.

export function describeValue(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
  if (typeof v === "bigint") return v.toString();
  if (v === null || typeof v !== "object") return String(v);
  if (Array.isArray(v)) return `an array of ${v.length}`;
  return "an object";
}

/** The string form of a scalar used as a code or lookup key; undefined for objects. */
export function scalarKey(v: unknown): string | undefined {
  switch (typeof v) {
    case "string":
      return v;
    case "number":
      return Number.isFinite(v) ? String(v) : undefined;
    case "bigint":
    case "boolean":
      return String(v);
    default:
      return undefined;
  }
}
