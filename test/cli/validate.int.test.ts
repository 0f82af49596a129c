// `crossmap validate --to openehr_1.0.4` as a process: exit codes, one line per violation, the summary.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { composition } from "../support/openehr-sample.js";
import { runCli } from "./run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "crossmap-validate-"));
const good = composition();
const bad = composition();
bad.content[0].data.events[0].data.items[0].value.units = "kilogram";
const ndjson = join(dir, "COMPOSITION.ndjson");
writeFileSync(ndjson, `${JSON.stringify(good)}\n${JSON.stringify(bad)}\n{not json\n`);
const array = join(dir, "compositions.json");
writeFileSync(array, JSON.stringify([good, good], null, 2));

describe("crossmap validate", () => {
  it("exits 0 for valid compositions (a JSON array document) and prints the summary on stderr", async () => {
    const r = await runCli(["validate", "--to", "openehr_1.0.4", array]);
    expect(r).toEqual({
      code: 0,
      stdout: "",
      stderr: "checked 2 objects (2 COMPOSITION): 2 valid, 0 invalid; 0 errors, 0 warnings\n",
    });
  });

  it("prints each violation with file:line, object, path, code and node; exits 1", async () => {
    const r = await runCli(["validate", "--to", "openehr_1.0.4", ndjson]);
    expect(r.code).toBe(1);
    expect(r.stdout.split("\n")).toEqual([
      `${ndjson}:2: error: COMPOSITION crossmap.encounter.v1 content[0].data.events[0].data.items[0].value.units: units "kilogram" are not one of kg, [lb_av], g [units] at [openEHR-EHR-COMPOSITION.encounter.v1]/content[openEHR-EHR-OBSERVATION.body_weight.v2]/data[at0002]/events[at0003]/data[at0001]/items[at0004]/value`,
      `${ndjson}:3: error: (unreadable): ${errorOf("{not json")} [malformed_json]`,
      "",
    ]);
    expect(r.stderr).toBe("checked 3 objects (2 COMPOSITION): 1 valid, 2 invalid; 2 errors, 0 warnings\n");
  });

  it("writes violations as JSON lines with --format json, from stdin", async () => {
    const r = await runCli(["validate", "--to", "openehr_1.0.4", "--format", "json"], {
      stdin: `${JSON.stringify(bad)}\n`,
    });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      at: "<stdin>:1",
      object: "COMPOSITION crossmap.encounter.v1",
      severity: "error",
      code: "units",
      path: "content[0].data.events[0].data.items[0].value.units",
      node: "[openEHR-EHR-COMPOSITION.encounter.v1]/content[openEHR-EHR-OBSERVATION.body_weight.v2]/data[at0002]/events[at0003]/data[at0001]/items[at0004]/value",
      message: 'units "kilogram" are not one of kg, [lb_av], g',
    });
  });

  it("knows only the templates it is given with --no-builtin-templates", async () => {
    const r = await runCli(["validate", "--to", "openehr_1.0.4", "--no-builtin-templates", array]);
    expect(r.code).toBe(1);
    expect(r.stdout.split("\n")[0]).toBe(
      `${array}[0]: error: COMPOSITION crossmap.encounter.v1 archetype_details.template_id.value: no template crossmap.encounter.v1 was given (templates: none) [template_id]`,
    );
  });

  it("is a usage error (exit 2) without --to, or with a template that is not an OPT", async () => {
    const noTo = await runCli(["validate", array]);
    expect(noTo.code).toBe(2);
    expect(noTo.stderr).toContain("error: required option '--to <standard>' not specified");
    const notOpt = join(dir, "x.opt");
    writeFileSync(notOpt, "<archetype/>");
    const r = await runCli(["validate", "--to", "openehr_1.0.4", "--template", notOpt, array]);
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr: `crossmap: cannot read template ${notOpt}: not an operational template: no <template> element\n`,
    });
  });
});

function errorOf(text: string): string {
  try {
    JSON.parse(text);
    return "";
  } catch (e) {
    return (e as Error).message;
  }
}
