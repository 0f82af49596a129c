#!/usr/bin/env node
// Part of `npm run build`: validates the built-in crossmaps and standard definitions once and writes them
// as dist/crossmaps.json, which `crossmap map` reads instead of parsing YAML at every start
// (src/crossmap/compiled.ts). Each entry carries the SHA-256 of its YAML, so an edit after the build is
// noticed and the YAML read instead.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { parseCrossmap } = await import(join(root, "dist/crossmap/load.js"));
const { StandardDefinitionSchema } = await import(join(root, "dist/crossmap/standards.js"));
const { summarize } = await import(join(root, "dist/crossmap/catalog.js"));
const { storedFile } = await import(join(root, "dist/crossmap/compiled.js"));
const sha256 = (text) => createHash("sha256").update(text).digest("hex");

const dir = join(root, "crossmaps");
const crossmaps = [];
for (const file of readdirSync(dir).sort()) {
  if (!/\.ya?ml$/.test(file)) continue;
  const text = readFileSync(join(dir, file), "utf8");
  // Throws, with every problem located, if a built-in crossmap does not load: the build fails.
  const { document } = parseCrossmap(text, { file: `crossmaps/${file}` });
  const { size, mtimeMs } = statSync(join(dir, file));
  crossmaps.push({ file, sha256: sha256(text), size, mtime_ms: mtimeMs, summary: summarize(document), document });
}
const standards = [];
for (const file of readdirSync(join(dir, "standards")).sort()) {
  if (!/\.ya?ml$/.test(file)) continue;
  const text = readFileSync(join(dir, "standards", file), "utf8");
  const definition = StandardDefinitionSchema.parse(parse(text));
  standards.push({ file, sha256: sha256(text), definition });
}
// The YAML files in folders under crossmaps/standards/ as plain data (src/crossmap/builtin-data.ts): the
// HL7 v2 reader's message structures, which an HL7 v2 run otherwise parses as YAML at start. (The
// definitions beside the folders are in `standards` above; the reader takes its field names from there.)
const data = [];
const walk = (rel) => {
  for (const entry of readdirSync(join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = `${rel}/${entry.name}`;
    if (entry.isDirectory()) walk(path);
    else if (/\.ya?ml$/.test(entry.name)) {
      const text = readFileSync(join(dir, path), "utf8");
      data.push({ file: path, sha256: sha256(text), value: parse(text) });
    }
  }
};
for (const entry of readdirSync(join(dir, "standards"), { withFileTypes: true })) {
  if (entry.isDirectory()) walk(`standards/${entry.name}`);
}
writeFileSync(join(root, "dist/crossmaps.json"), storedFile(crossmaps, standards, data));
