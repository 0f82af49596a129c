#!/usr/bin/env node
// Regenerates the HL7 table value maps of crossmaps/hl7v2_2.5.1-to-fhir_r4.yaml from the v2-to-FHIR
// Implementation Guide's vocabulary ConceptMaps (test/fixtures/hl7v2/v2-to-fhir-ig/codesystems/*.csv), so
// they cannot drift from the IG: the block between the "generated value maps" markers is rewritten.
// test/crossmaps/hl7v2-value-maps.test.ts checks the file against the CSVs with the same table (MAPS).
// Usage: node scripts/gen-hl7v2-value-maps.mjs
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { MAPS, readConceptMap } from "./hl7v2-value-maps.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const file = join(root, "crossmaps", "hl7v2_2.5.1-to-fhir_r4.yaml");
const BEGIN = "  # ---- generated value maps: scripts/gen-hl7v2-value-maps.mjs; do not edit by hand ----";
const END = "  # ---- end of generated value maps ----";

const yamlKey = (k) => (/^[A-Za-z][A-Za-z0-9_-]*$/.test(k) && !/^(y|n|yes|no|true|false|on|off|null)$/i.test(k) ? k : JSON.stringify(k));
// JSON is YAML's flow style: objects and odd strings are written as JSON.
const yamlValue = (v) =>
  typeof v === "string" && yamlKey(v) === v && !/^\d/.test(v) ? v : JSON.stringify(v);
const lines = [BEGIN];
for (const m of MAPS) {
  const { mapping, identifierTypes } = readConceptMap(join(root, "test", "fixtures", "hl7v2", "v2-to-fhir-ig"), m);
  lines.push(`  # ${m.about}`, `  # IG ConceptMap "${m.csv}"${m.extra ? "; plus, for codes the IG leaves unmapped:" : "."}`);
  for (const [code, why] of Object.entries(m.reasons ?? {})) lines.push(`  #   ${code}: ${why}`);
  if (identifierTypes) {
    lines.push(`  ${m.name}:`, "    type: hl7v2_field", "    format: CX", "    identifier_types:");
    for (const c of identifierTypes) lines.push(`      - ${yamlValue(c)}`);
    continue;
  }
  lines.push(`  ${m.name}:`, "    type: value_map", "    mapping:");
  for (const [k, v] of Object.entries(mapping)) lines.push(`      ${yamlKey(k)}: ${yamlValue(v)}`);
  if (m.default !== undefined) lines.push(`    default: ${yamlValue(m.default)}`);
}
lines.push(END);

const text = readFileSync(file, "utf8");
const start = text.indexOf(BEGIN);
const end = text.indexOf(END);
if (start < 0 || end < 0) throw new Error(`${file}: the generated value maps markers are missing`);
writeFileSync(file, `${text.slice(0, start)}${lines.join("\n")}${text.slice(end + END.length)}`);
