// Reading the site table of `--identifier-systems FILE` (YAML): loaded only by runs that give the flag, so
// that an HL7 v2 run without it parses no YAML at start-up.
import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { AppError } from "../../errors.js";
import { isAbsoluteUri } from "../../transforms/hl7v2-composites.js";
import type { IdentifierSystems } from "./identifier-systems.js";

/** Parses the table; every problem is a usage error naming the file and the key. */
export function parseIdentifierSystems(text: string, file: string): IdentifierSystems {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new AppError(400, "usage", `--identifier-systems ${file}: not YAML: ${(err as Error).message}`);
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) {
    throw new AppError(
      400,
      "usage",
      `--identifier-systems ${file}: expected a map of namespace ids to system URIs, e.g. "HCD: urn:oid:2.16.840.1.113883.19"`,
    );
  }
  const out = new Map<string, string>();
  for (const [key, uri] of Object.entries(doc)) {
    if (typeof uri !== "string" || !isAbsoluteUri(uri)) {
      throw new AppError(
        400,
        "usage",
        `--identifier-systems ${file}: "${key}" must map to an absolute URI without spaces (urn:oid:..., http://...), got ${JSON.stringify(uri)}`,
      );
    }
    const parts = key.split("^");
    if (key.trim() === "" || parts.length > 2 || parts.some((p) => p.trim() === "")) {
      throw new AppError(
        400,
        "usage",
        `--identifier-systems ${file}: "${key}" is not a namespace id or <identifier type>^<namespace id>`,
      );
    }
    out.set(parts.map((p) => p.trim()).join("^"), uri);
  }
  return out;
}

export async function loadIdentifierSystems(file: string): Promise<IdentifierSystems> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new AppError(
      400,
      "usage",
      `--identifier-systems ${file}: cannot read it: ${(err as Error).message}`,
    );
  }
  return parseIdentifierSystems(text, file);
}
