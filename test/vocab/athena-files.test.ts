// Reading one Athena table: a byte order mark before the header, in either form.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { detectForm, readTable } from "../../src/vocab/athena-files.js";

const dir = mkdtempSync(join(tmpdir(), "crossmap-athena-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function read(name: string, bytes: string): Promise<{ header: string[]; rows: string[][] }> {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  const rows: string[][] = [];
  let header: string[] = [];
  await readTable(file, detectForm(file), {
    header(columns) {
      header = columns;
      return (fields) => rows.push(fields);
    },
    parseError() {},
  });
  return { header, rows };
}

describe("readTable with a BOM", () => {
  it("reads a quoted header of the comma form (as Excel and R save it)", async () => {
    const t = await read(
      "quoted.csv",
      '\uFEFF"concept_id","concept_name"\r\n201826,"Type 2 diabetes mellitus, ""adult"""\r\n',
    );
    expect(t.header).toEqual(["concept_id", "concept_name"]);
    expect(t.rows).toEqual([["201826", 'Type 2 diabetes mellitus, "adult"']]);
  });

  it("reads the TAB form's header", async () => {
    const t = await read("tab.csv", "\uFEFFconcept_id\tconcept_name\n201826\tMénière's disease\n");
    expect(t.header).toEqual(["concept_id", "concept_name"]);
    expect(t.rows).toEqual([["201826", "Ménière's disease"]]);
  });
});
