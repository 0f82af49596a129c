// YAML data files shipped under crossmaps/standards/ (the HL7 v2 field names and message structures): as
// the build stored them in dist/crossmaps.json while the file is unchanged, else parsed from the YAML.
// Parsing them cost an HL7 v2 run ~0.8 s before its first message, in every thread that reads them.
import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import { BUILTIN_DIR, parseYaml } from "./catalog.js";
import { readCompiled, sha256 } from "./compiled.js";

/** The parsed content of the YAML file at `path`; shared, so callers must not change it. */
export function readBuiltinYaml(path: string): unknown {
  const text = readFileSync(path, "utf8");
  const file = relative(BUILTIN_DIR, path).split(sep).join("/");
  const stored = file.startsWith("..") ? undefined : readCompiled()?.data.find((d) => d.file === file);
  return stored !== undefined && stored.sha256 === sha256(text) ? stored.value : parseYaml(text);
}
