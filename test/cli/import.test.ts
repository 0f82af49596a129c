// `crossmap import` into a data directory: a file refused as a whole is named as FILE:LINE, as its rows are.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStores } from "../../src/store/env.js";
import { runCli } from "./run-cli.js";

let dir: string;
let data: string;
let project: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "crossmap-cli-import-"));
  data = join(dir, "data");
  const stores = openStores(data);
  project = (await stores.write(() => stores.projects.create({ name: "Lab codes" }))).id;
  await stores.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("crossmap import of a file it cannot read as a whole", () => {
  it("names the file and line of a header of neither format", async () => {
    const file = join(dir, "codes.csv");
    writeFileSync(file, "code,name,target\r\nGLU,Glucose,3004501\r\n");
    const r = await runCli(["import", file, "--project", project, "--data-dir", data]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `crossmap: ${file}:1: the header is neither Usagi's (sourceCode, mappingStatus, conceptId, ...) nor SOURCE_TO_CONCEPT_MAP's (source_code, source_vocabulary_id, target_concept_id, ...)\n`,
    );
    expect(r.stdout).toBe("");
  });

  it("names the file and line of a header that lacks a column", async () => {
    const file = join(dir, "usagi.csv");
    writeFileSync(file, "sourceCode,sourceName,conceptId\nGLU,Glucose,3004501\n");
    const r = await runCli(["import", file, "--project", project, "--data-dir", data]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`crossmap: ${file}:1: the usagi header lacks mappingStatus\n`);
  });
});

describe("crossmap import --project NAME", () => {
  it("answers a project's name with its id", async () => {
    const file = join(dir, "usagi-ok.csv");
    writeFileSync(file, "sourceCode,sourceName,mappingStatus,conceptId\nGLU,Glucose,UNCHECKED,3004501\n");
    const r = await runCli(["import", file, "--project", "Lab codes", "--data-dir", data]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `crossmap: Project Lab codes not found in ${data}; --project takes the project's id: the project named "Lab codes" is ${project}\n`,
    );
    const unknown = await runCli(["import", file, "--project", "nope", "--data-dir", data]);
    expect(unknown.stderr).toBe(
      `crossmap: Project nope not found in ${data} (\`crossmap projects list --data-dir ${data}\` prints the ids)\n`,
    );
  });
});
