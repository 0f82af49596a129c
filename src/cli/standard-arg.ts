// `--from`/`--to`/`--via` take a standard's id or an unambiguous start of one (crossmap/standard-names.ts).
import { Option } from "commander";
import { listBuiltinCrossmaps } from "../crossmap/catalog.js";
import { canonicalStandard, SHORT_NAMES, standardIds } from "../crossmap/standard-names.js";

/** commander's argument parser for a standard option: the built-in crossmaps' sources and targets. */
function parseStandard(value: string): string {
  return canonicalStandard(value, standardIds(listBuiltinCrossmaps()));
}

/** A `--from`/`--to`/`--via` option taking a standard's id or short name. */
export function standardOption(flags: string, description: string): Option {
  return new Option(flags, `${description} (or a short name: ${SHORT_NAMES})`).argParser(parseStandard);
}
