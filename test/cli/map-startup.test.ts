// What `crossmap map` loads before its first record (docs/map.md, "Start-up"): with a built-in crossmap,
// the bundled CLI and no zod, no YAML parser; with a crossmap of the user's, both, as it is validated.
// And what the bundle must keep: a --transforms module's `fail()` is the engine's own Unmappable.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const logLoads = fileURLToPath(new URL("../support/log-loads.mjs", import.meta.url));
const env = { NODE_OPTIONS: `--import=${logLoads}` };
const person = '{"person_id": 1, "gender_concept_id": 8507, "year_of_birth": 1990}\n';

/** The modules a run loaded, as paths from the package (dist/..., node_modules/<package>/...). */
function loaded(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter((l) => l.startsWith("loaded file://"))
    .map((l) => fileURLToPath(l.slice("loaded ".length)).replace(/^.*?\/(dist|node_modules|bin)\//, "$1/"));
}
const packageOf = (m: string) => /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(m)?.[1];

describe("crossmap map start-up", () => {
  it("with a built-in crossmap, runs the bundle and loads no zod and no YAML parser", async () => {
    const r = await runCli(
      ["map", "--from", "omop_cdm_v5.4", "--to", "fhir_r4", "--entity", "person", "-q"],
      {
        stdin: person,
        env,
      },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ resourceType: "Patient", id: "1", gender: "male" });
    const modules = loaded(r.stderr);
    expect(modules).toContain("dist/bundle/main.js");
    // Besides the bundle, only the two modules whose classes a --transforms module shares (bundle-cli.mjs),
    // and the young-generation check bin/crossmap.js makes before loading the bundle.
    // (A set: on Node 24 the check starts the run again, and both starts log what they load.)
    const own = new Set(modules.filter((m) => m.startsWith("dist/") && !m.startsWith("dist/bundle/")));
    expect([...own].sort()).toEqual([
      "dist/cli/young-generation.js",
      "dist/errors.js",
      "dist/transforms/types.js",
    ]);
    expect(new Set(modules.map(packageOf).filter((p) => p !== undefined))).toEqual(new Set());
  });

  it("an HL7 v2 run with the built-in crossmap parses no YAML (field names, structures from the build)", async () => {
    const r = await runCli(
      [
        "map",
        "--from",
        "hl7v2",
        "--to",
        "fhir",
        "--format",
        "hl7v2",
        "-q",
        "test/fixtures/hl7v2/samples/ORM-O01-02.hl7",
      ],
      { env },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ resourceType: "Bundle", type: "collection" });
    expect(new Set(loaded(r.stderr).map(packageOf)).has("yaml")).toBe(false);
  });

  it("with a crossmap of the user's, loads zod and the YAML parser to validate it", async () => {
    const r = await runCli(
      ["map", "--crossmap", "test/fixtures/map/omop-to-fhir.yaml", "--entity", "person", "-q"],
      {
        stdin: person,
        env,
      },
    );
    expect(r.code).toBe(0);
    const packages = new Set(loaded(r.stderr).map(packageOf));
    expect(packages.has("zod")).toBe(true);
    expect(packages.has("yaml")).toBe(true);
  });

  it("a --transforms module's fail() is an issue, not a value (the bundle shares Unmappable with dist/)", async () => {
    const r = await runCli(
      [
        "map",
        "--crossmap",
        "test/fixtures/map/person-checked.yaml",
        "--entity",
        "person",
        "--transforms",
        "test/fixtures/map/checked-transforms.mjs",
      ],
      {
        stdin:
          '{"person_id": 1, "person_source_value": "ab"}\n{"person_id": 2, "person_source_value": "A1"}\n',
      },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('{"id":"1","identifier":[{"value":"AB"}]}\n{"id":"2"}\n');
    expect(r.stderr).toContain(
      '-:2: error invalid_value at person.person_source_value -> Patient.identifier[0].value: "A1" is not lower-case letters\n',
    );
  });
});
