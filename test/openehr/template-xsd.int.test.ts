// The shipped operational templates against the OPT 1.4 XML schema (openEHR ITS-XML), with libxml2's
// xmllint as the validator (Debian package libxml2-utils; .ci/run installs it).
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OPENEHR_DIR } from "../../src/openehr/rm/paths.js";
import { FIXTURES_DIR } from "../support/omop.js";

const xsd = join(FIXTURES_DIR, "openehr", "its-xml", "AM", "Release-1.4", "Template.xsd");
const templates = join(OPENEHR_DIR, "templates");

describe("operational templates against the OPT 1.4 XSD", () => {
  const files = readdirSync(templates).filter((f) => f.endsWith(".opt"));

  it.each(files)("%s validates", (file) => {
    const run = (): string =>
      execFileSync("xmllint", ["--noout", "--schema", xsd, join(templates, file)], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    let out: string;
    try {
      run();
      out = "validates";
    } catch (e) {
      const err = e as { code?: string; stderr?: string };
      if (err.code === "ENOENT")
        throw new Error("xmllint is missing: apt-get install libxml2-utils (see README)");
      out = String(err.stderr);
    }
    expect(out).toBe("validates");
  });

  it("rejects an OPT that breaks the schema (the check can fail)", () => {
    const bad = join(FIXTURES_DIR, "openehr", "bad-template.opt");
    let stderr = "";
    try {
      execFileSync("xmllint", ["--noout", "--schema", xsd, bad], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (e) {
      stderr = String((e as { stderr?: string }).stderr);
    }
    expect(stderr).toContain("bad-template.opt fails to validate");
  });
});
