// The site table of identifier systems (`--identifier-systems FILE`): local assigning-authority namespace ids
// of HL7 v2 identifiers (`HCD`, or `MR^GOOD HEALTH HOSPITAL` for one identifier type of that authority) ->
// the FHIR Identifier.system URIs a site uses for them. Read once per run; the reader hands it to every
// record as `$ctx.identifier_systems`, where hl7v2_field and the Bundle envelope look names up.
import { readFile } from "node:fs/promises";
import { parseYaml } from "../../crossmap/catalog.js";
import { AppError } from "../../errors.js";
import { isAbsoluteUri } from "../../transforms/hl7v2-composites.js";

/** Namespace id, or `<identifier type>^<namespace id>`, -> system URI. */
export type IdentifierSystems = ReadonlyMap<string, string>;

/** Parses the table; every problem is a usage error naming the file and the key. */
export function parseIdentifierSystems(text: string, file: string): IdentifierSystems {
  let doc: unknown;
  try {
    // The YAML parser loaded only when a table is given (a run without one must not pay its start-up).
    doc = parseYaml(text);
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
