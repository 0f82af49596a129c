// YAML data files shipped under crossmaps/standards/ (the HL7 v2 field names and message structures): as
// the build stored them in dist/crossmaps.json while the file is unchanged, else parsed from the YAML.
// Parsing them cost an HL7 v2 run ~0.8 s before its first message, in every thread that reads them.
import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import { BUILTIN_DIR, parseYaml } from "./catalog.js";
import { readCompiled, sha256 } from "./compiled.js";

/**
 * The parsed content of the YAML file at `path`; shared, so callers must not change it. A standard
 * definition (`standards/<file>`) is the one the build validated (only the keys its schema knows).
 */
export function readBuiltinYaml(path: string): unknown {
  const text = readFileSync(path, "utf8");
  const stored = storedAt(relative(BUILTIN_DIR, path).split(sep).join("/"));
  return stored !== undefined && stored.sha256 === sha256(text) ? stored.value() : parseYaml(text);
}

function storedAt(file: string): { sha256: string; value: () => unknown } | undefined {
  const compiled = readCompiled();
  const definition = /^standards\/[^/]+$/.test(file)
    ? compiled?.standards.find((s) => `standards/${s.file}` === file)
    : undefined;
  if (definition !== undefined) return { sha256: definition.sha256, value: () => definition.definition };
  const data = compiled?.data.find((d) => d.file === file);
  return data && { sha256: data.sha256, value: () => data.value };
}
