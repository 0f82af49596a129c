#!/usr/bin/env node
// Regenerates the coding-system table (HL7 table 0396 names -> FHIR system URIs) of the built-in HL7 v2
// crossmap from crossmaps/standards/hl7v2/coding-systems.yaml, so the two cannot drift: the lines between the
// "generated coding systems" markers of crossmaps/hl7v2_2.5.1-to-fhir_r4.yaml are rewritten.
// test/crossmaps/hl7v2-coding-systems.test.ts checks that the crossmap says what the data file says.
// Usage: node scripts/gen-hl7v2-coding-systems.mjs
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const file = join(root, "crossmaps", "hl7v2_2.5.1-to-fhir_r4.yaml");
export const BEGIN =
  "    # ---- generated coding systems: scripts/gen-hl7v2-coding-systems.mjs from crossmaps/standards/hl7v2/coding-systems.yaml; do not edit by hand ----";
export const END = "    # ---- end of generated coding systems ----";

/** The crossmap lines for the data file's table: `systems` (anchored for the other coded transforms) and `local_systems`. */
export function codingSystemLines(data) {
  const q = (s) => JSON.stringify(s);
  const lines = [BEGIN, "    systems: &table0396"];
  for (const c of data.coding_systems) {
    const note = c.us_uri ? `  # table 0396: ${c.uri}; US senders mean this` : "";
    lines.push(`      ${q(c.name)}: ${q(c.us_uri ?? c.uri)}${note}`);
  }
  for (const p of data.prefixes) lines.push(`      ${q(`${p.prefix}*`)}: ${q(p.uri)}`);
  lines.push(`    local_systems: [${data.local.map(q).join(", ")}]`, END);
  return lines;
}

export function readCodingSystems() {
  return parse(readFileSync(join(root, "crossmaps", "standards", "hl7v2", "coding-systems.yaml"), "utf8"));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = readFileSync(file, "utf8");
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < 0) throw new Error(`${file}: the generated coding systems markers are missing`);
  const lines = codingSystemLines(readCodingSystems());
  writeFileSync(file, `${text.slice(0, start)}${lines.join("\n")}${text.slice(end + END.length)}`);
}
