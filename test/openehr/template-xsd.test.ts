// The shipped operational templates against the OPT 1.4 XML schema (openEHR ITS-XML), validated by libxml2
// compiled to WebAssembly (the xmllint-wasm package): no system xmllint is needed.
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateXML, type XMLFileInfo } from "xmllint-wasm";
import { OPENEHR_DIR } from "../../src/openehr/rm/paths.js";
import { FIXTURES_DIR } from "../support/omop.js";

const itsXml = join(FIXTURES_DIR, "openehr", "its-xml");
const templates = join(OPENEHR_DIR, "templates");

/** Every schema of the ITS-XML folder, named by its path in it, so their relative includes resolve. */
function schemas(dir = ""): XMLFileInfo[] {
  return readdirSync(join(itsXml, dir), { withFileTypes: true }).flatMap((e) => {
    const name = dir === "" ? e.name : `${dir}/${e.name}`;
    if (e.isDirectory()) return schemas(name);
    return e.name.endsWith(".xsd")
      ? [{ fileName: name, contents: readFileSync(join(itsXml, name), "utf8") }]
      : [];
  });
}

const TEMPLATE_XSD = "AM/Release-1.4/Template.xsd";

/** xmllint's own messages for one file against Template.xsd (and the schemas it includes). */
async function validate(path: string): Promise<string[]> {
  const all = schemas();
  const result = await validateXML({
    xml: { fileName: basename(path), contents: readFileSync(path, "utf8") },
    schema: all.filter((f) => f.fileName === TEMPLATE_XSD),
    preload: all.filter((f) => f.fileName !== TEMPLATE_XSD),
  });
  return result.valid ? [] : result.errors.map((e) => e.rawMessage);
}

describe("operational templates against the OPT 1.4 XSD", () => {
  const files = readdirSync(templates).filter((f) => f.endsWith(".opt"));

  it("has templates to check", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)("%s validates", async (file) => {
    expect(await validate(join(templates, file))).toEqual([]);
  });

  it("rejects an OPT that breaks the schema (the check can fail)", async () => {
    expect(await validate(join(FIXTURES_DIR, "openehr", "bad-template.opt"))).toEqual([
      "bad-template.opt:9: Schemas validity error : Element '{http://schemas.openehr.org/v1}concept': This element is not expected. Expected is one of ( {http://schemas.openehr.org/v1}is_controlled, {http://schemas.openehr.org/v1}description, {http://schemas.openehr.org/v1}revision_history, {http://schemas.openehr.org/v1}uid, {http://schemas.openehr.org/v1}template_id ).",
    ]);
  });
});
