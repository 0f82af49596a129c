// The abbreviation table `crossmap suggest` reads: the built-in crossmaps/suggest/abbreviations.tsv, or a
// user's file of the same form (suggest-text.ts parseAbbreviations). Read once per process and shared.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AppError } from "../errors.js";
import { type Abbreviations, parseAbbreviations } from "./suggest-text.js";

// The built-in crossmaps folder, found as src/crossmap/catalog.ts finds it (the same depth here and in the bundle).
export const BUILTIN_ABBREVIATIONS = join(
  fileURLToPath(new URL("../../crossmaps/", import.meta.url)),
  "suggest",
  "abbreviations.tsv",
);

const loaded = new Map<string, Abbreviations>();

/** The table in `file` (default: the built-in one), parsed once. */
export function loadAbbreviations(file: string = BUILTIN_ABBREVIATIONS): Abbreviations {
  let table = loaded.get(file);
  if (!table) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      throw new AppError(400, "input_error", `cannot read ${file}: ${(err as Error).message}`);
    }
    table = parseAbbreviations(text, file);
    loaded.set(file, table);
  }
  return table;
}
