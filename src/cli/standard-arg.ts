// `--from`/`--to`/`--via` take a standard's id (`omop_cdm_v5.4`) or any unambiguous start of one (`omop`,
// `fhir`, `hl7v2`, `openehr`): the ids are long and versioned, and users type the short names.
import { Option } from "commander";
import { listBuiltinCrossmaps } from "../crossmap/catalog.js";

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

/** commander's argument parser for a standard option: the built-in crossmaps' sources and targets. */
function parseStandard(value: string): string {
  const known = listBuiltinCrossmaps().flatMap((e) => [e.source, e.target]);
  return canonicalStandard(value, known);
}

/** A `--from`/`--to`/`--via` option taking a standard's id or short name. */
export function standardOption(flags: string, description: string): Option {
  return new Option(flags, `${description} (or a short name: omop, fhir, hl7v2, openehr)`).argParser(
    parseStandard,
  );
}
