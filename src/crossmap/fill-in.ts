// Merging two records that stand for the same thing (deduplicated outputs, merged parents): the first wins.
import type { TargetRecord } from "./types.js";

/** Copies into `into` what it lacks from `from`, recursively into objects; arrays and primitives stay as they are. */
export function fillIn(into: TargetRecord, from: TargetRecord): void {
  for (const [k, v] of Object.entries(from)) {
    const have = into[k];
    if (have === undefined) into[k] = v;
    else if (
      have !== null &&
      typeof have === "object" &&
      !Array.isArray(have) &&
      v !== null &&
      typeof v === "object" &&
      !Array.isArray(v)
    ) {
      fillIn(have as TargetRecord, v as TargetRecord);
    }
  }
}
