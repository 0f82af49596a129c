// A standard's id (`omop_cdm_v5.4`) or any unambiguous start of one (`omop`, `fhir`, `hl7v2`, `openehr`):
// the ids are long and versioned, and users type the short names. One rule for the command line's
// --from/--to/--via and the HTTP API's source_standard/target_standard.
import type { CatalogEntry } from "./catalog.js";

/**
 * The id among `known` that `name` names: itself when it is one (any case), else the only id it starts
 * (any case). Anything else is returned unchanged, so a custom crossmap's own standard still works and an
 * unknown or ambiguous name meets the caller's usual "no built-in crossmap" error, which lists the ids.
 */
export function canonicalStandard(name: string, known: readonly string[]): string {
  const lower = name.toLowerCase();
  const exact = known.find((k) => k.toLowerCase() === lower);
  if (exact !== undefined) return exact;
  const starts = [...new Set(known.filter((k) => k.toLowerCase().startsWith(lower)))];
  return lower.length > 0 && starts.length === 1 ? (starts[0] as string) : name;
}

/** The standards of a catalog of crossmaps: every source and target. */
export const standardIds = (catalog: readonly CatalogEntry[]): string[] =>
  catalog.flatMap((e) => [e.source, e.target]);

/** The short names documented in help texts and the API description. */
export const SHORT_NAMES = "omop, fhir, hl7v2, openehr";
