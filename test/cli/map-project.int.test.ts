// `crossmap map --project` changes only what the project's decisions decide: FHIR Bundles mapped to OMOP
// with and without a project give the same issues and the same rows but for the decided code; and a run
// never creates a data directory that is not there.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conceptFields, pushItems } from "../../src/server/handlers/sync.js";
import { openStores } from "../../src/store/env.js";
import { repoRoot, runCli } from "./run-cli.js";

const BUNDLES = join(repoRoot, "test/fixtures/fhir/synthea");
const ORG_TYPE = "http://terminology.hl7.org/CodeSystem/organization-type";
let dir: string;
let data: string;
let project: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "crossmap-map-project-"));
  data = join(dir, "data");
  const stores = openStores(data);
  project = (
    await stores.write(() => stores.projects.create({ name: "Sites", target_model: "omop_cdm_v5.4" }))
  ).id;
  // One decision, for a code none of the Bundles has, and one for the type every Organization has.
  await pushItems(stores, stores.conceptItems, "concept", {
    projectId: project,
    items: [
      {
        id: "dept",
        fields: conceptFields({
          source_code: "dept",
          source_vocabulary_id: ORG_TYPE,
          target_concept_id: 8870,
          method: "override",
        }),
      },
    ],
    force: false,
    keyId: null,
    reviewer: null,
  });
  await stores.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const files = readdirSync(BUNDLES)
  .filter((f) => f.endsWith(".json"))
  .map((f) => join(BUNDLES, f));
const map = (name: string, extra: string[]) =>
  runCli([
    "map",
    ...["--from", "fhir", "--to", "omop", "--format", "fhir-bundle"],
    ...["--out-dir", join(dir, name), "--errors", join(dir, `${name}.errors.ndjson`)],
    ...extra,
    ...files,
  ]);
const output = (name: string) =>
  Object.fromEntries(readdirSync(join(dir, name)).map((f) => [f, readFileSync(join(dir, name, f), "utf8")]));

describe("crossmap map --project", () => {
  it("maps every code its decisions do not name as the run without the project does (Organization.type)", async () => {
    const plain = await map("plain", []);
    const scoped = await map("scoped", ["--project", project, "--data-dir", data]);
    expect([plain.code, scoped.code], plain.stderr.slice(-500) + scoped.stderr.slice(-500)).toEqual([0, 0]);
    expect(readFileSync(join(dir, "scoped.errors.ndjson"), "utf8")).toBe(
      readFileSync(join(dir, "plain.errors.ndjson"), "utf8"),
    );
    expect(output("scoped")).toEqual(output("plain"));
    expect(output("plain")["care_site.ndjson"]).toContain('"place_of_service_source_value":"prov"');
  });

  it("refuses a data directory that does not exist, and creates none (exit 2)", async () => {
    const cwd = mkdtempSync(join(dir, "cwd-"));
    const r = await runCli(
      ["map", "--from", "fhir", "--to", "omop", "--project", project, files[0] as string],
      {
        cwd,
      },
    );
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      "",
      "crossmap: data directory ./data does not exist; check --data-dir\n",
    ]);
    expect(existsSync(join(cwd, "data"))).toBe(false);
  });
});
