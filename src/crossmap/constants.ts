// Flattens YAML constants into (path, primitive) leaves, so writing them per record is plain setter calls
// and no shared object ever ends up inside (and mutated through) an output record.

export interface ConstantLeaf {
  /** Target path relative to the entity, e.g. `meta.profile[0]`. */
  path: string;
  value: string | number | boolean;
}

export function flattenConstants(prefix: string, value: unknown, out: ConstantLeaf[] = []): ConstantLeaf[] {
  if (value === null || value === undefined || value === "") return out;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) flattenConstants(`${prefix}[${i}]`, value[i], out);
  } else if (typeof value === "object") {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      flattenConstants(prefix ? `${prefix}.${k}` : k, v, out);
    }
  } else if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    out.push({ path: prefix, value });
  }
  return out;
}
