// Issue 27, findings 4-7 (server parts): CSV exports neutralise cells a spreadsheet would run, imports
// read CSV with the CLI's reader and rules and apply the push limits, confidence is in [0, 1], and bytes
// that are not UTF-8 are reported (an import row) or a 422 naming the field (a JSON body), never U+FFFD.
// Real HTTP, real LMDB, the real data worker.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";
import { type Harness, startHarness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const send = async (path: string, body: Buffer | string, type: string) => {
  const res = await fetch(`${h.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${h.admin}`, "content-type": type },
    body: typeof body === "string" ? body : new Uint8Array(body),
  });
  return { status: res.status, json: (await res.json()) as unknown };
};

const newProject = async (name: string) =>
  ((await h.request("POST", "/api/v1/projects", { body: { name } })).json as { id: string }).id;

const USAGI_HEADER =
  "sourceCode,sourceName,sourceFrequency,sourceAutoAssignedConceptIds,ADD_INFO:unit,matchScore,mappingStatus,equivalence,statusSetBy,statusSetOn,conceptId,conceptName,domainId,mappingType,comment,createdBy,createdOn,assignedReviewer";
const usagiRow = (code: string, name: string, score = "0.9") =>
  `${code},${name},10,,mg/dL,${score},APPROVED,EQUAL,ada,1709280000000,3004501,Glucose,Measurement,MAPS_TO,,<auto>,1709270000000,`;

describe("SOURCE_TO_CONCEPT_MAP export: cells a spreadsheet would run", () => {
  it("starts them with ' (OWASP's rule), and an import of the file reads them back as they were", async () => {
    const p = await newProject("formulas");
    const codes = ["=cmd|' /C calc'!A0", "+1", "-2", "@SUM(A1)", "OK"];
    const descriptions = ['=HYPERLINK("http://x.example","y")', "\tTabbed", "\rCR", "plain", "-3 dB"];
    const pushed = await h.request("POST", `/api/v1/sync/projects/${p}/concept-mappings/bulk`, {
      body: {
        items: codes.map((code, i) => ({
          id: `k${i}`,
          source_code: code,
          source_description: descriptions[i],
          source_vocabulary_id: "LOCAL",
          target_concept_id: 3004501,
          target_vocabulary_id: "LOINC",
          method: "manual",
        })),
      },
    });
    expect(pushed.status).toBe(200);
    const r = await h.request("GET", `/api/v1/projects/${p}/exports/source-to-concept-map`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const today = new Date().toISOString().slice(0, 10);
    const tail = `3004501,LOINC,${today},2099-12-31,`;
    // Issue 27: `=cmd|' /C calc'!A0` went out unchanged.
    expect(r.text.split("\r\n")).toEqual([
      "source_code,source_concept_id,source_vocabulary_id,source_code_description,target_concept_id,target_vocabulary_id,valid_start_date,valid_end_date,invalid_reason",
      `'=cmd|' /C calc'!A0,0,LOCAL,"'=HYPERLINK(""http://x.example"",""y"")",${tail}`,
      `'+1,0,LOCAL,'\tTabbed,${tail}`,
      `'-2,0,LOCAL,"'\rCR",${tail}`,
      `'@SUM(A1),0,LOCAL,plain,${tail}`,
      `OK,0,LOCAL,'-3 dB,${tail}`,
      "",
    ]);
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    const again = await newProject("formulas again");
    const imported = await send(
      `/api/v1/projects/${again}/imports/source-to-concept-map`,
      r.text,
      "text/csv",
    );
    expect(imported).toMatchObject({ status: 200, json: { created: 5, problems: [] } });
    const pulled = await h.request("GET", `/api/v1/sync/projects/${again}/concept-mappings`);
    const items = (pulled.json as { items: { source_code: string; source_description: string }[] }).items;
    expect(items.map((i) => [i.source_code, i.source_description]).sort()).toEqual(
      [
        ["=cmd|' /C calc'!A0", '=HYPERLINK("http://x.example","y")'],
        ["+1", "Tabbed"],
        ["-2", "CR"],
        ["@SUM(A1)", "plain"],
        ["OK", "-3 dB"],
      ].sort(),
    );
  });
});

describe("Usagi import: the CLI's CSV reader and the push limits", () => {
  it("reports a quote left open on its line and reads the rows after it; short, long, out-of-range, over-long and non-UTF-8 rows are reported", async () => {
    const p = await newProject("usagi");
    const lines = [
      USAGI_HEADER,
      usagiRow("GLU", "Glucose"),
      usagiRow("BAD", '"Unclosed quote'),
      usagiRow("K", "Potassium"),
      `${usagiRow("EXTRA", "Extra")},surplus`,
      "SHORT,Short,10",
      usagiRow("SEVEN", "Seven", "7"),
      usagiRow("LONG", "x".repeat(2001)),
      usagiRow("UTF", "D\u00ffE"),
      usagiRow("NA", "Sodium"),
    ];
    // Line 9 carries the byte 0xff where the text has "\u00ff".
    const bytes = Buffer.concat(
      lines.map((line, i) =>
        i === 8
          ? Buffer.concat([
              Buffer.from(line.split("\u00ff")[0]!),
              Buffer.from([0xff]),
              Buffer.from(`${line.split("\u00ff")[1]}\r\n`),
            ])
          : Buffer.from(`${line}\r\n`),
      ),
    );
    const r = await send(`/api/v1/projects/${p}/imports/usagi`, bytes, "text/csv");
    expect(r.status).toBe(200);
    const summary = r.json as { created: number; items: { line: number }[]; problems: unknown[] };
    // Issue 27: rows after an unterminated quote were neither imported nor reported; extra cells, a
    // matchScore of 7 and a 30,000,000-character sourceName were stored; 0xff became U+FFFD.
    expect(summary.problems).toEqual([
      {
        line: 3,
        severity: "error",
        message:
          "the quote that opens a cell on line 3 is not closed where its row should end; that row is not read, and the lines after line 3 are read again",
      },
      { line: 5, severity: "error", message: "the row has 1 more cell(s) than the header; it is not read" },
      { line: 6, severity: "error", message: "the row has 3 cell(s), the header 18; it is not read" },
      { line: 7, severity: "error", message: "matchScore 7 is over 1" },
      { line: 8, severity: "error", message: "sourceName is 2001 characters long, over the limit of 2000" },
      {
        line: 9,
        severity: "error",
        message: "invalid UTF-8 (0xff) in column sourceName; the row is not read (the file must be UTF-8)",
      },
    ]);
    expect(summary.items.map((i) => i.line)).toEqual([2, 4, 10]);
    expect(summary.created).toBe(3);
  });

  it("takes a gzip-compressed file, and answers 422 for an encoding it cannot read", async () => {
    const { gzipSync } = await import("node:zlib");
    const p = await newProject("gzip");
    const file = `${USAGI_HEADER}\r\n${usagiRow("GLU", "Glucose")}\r\n`;
    const res = await fetch(`${h.url}/api/v1/projects/${p}/imports/usagi`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.admin}`, "content-type": "text/csv", "content-encoding": "gzip" },
      body: new Uint8Array(gzipSync(file)),
    });
    expect([res.status, ((await res.json()) as { created: number }).created]).toEqual([200, 1]);
    const odd = await fetch(`${h.url}/api/v1/projects/${p}/imports/usagi`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.admin}`, "content-type": "text/csv", "content-encoding": "zstd" },
      body: file,
    });
    expect([odd.status, await odd.json()]).toEqual([
      422,
      {
        detail: [
          {
            loc: ["body"],
            msg: "Content-Encoding zstd is not supported (gzip, deflate, br or none)",
            type: "value_error.content_encoding",
          },
        ],
      },
    ]);
  });
});

describe("pushes", () => {
  it("refuse a confidence outside [0, 1]", async () => {
    const r = await h.request("POST", `/api/v1/sync/projects/${h.projectId}/concept-mappings/bulk`, {
      body: {
        items: [
          { source_code: "X", confidence: 7 },
          { source_code: "Y", confidence: -0.5 },
        ],
      },
    });
    // Issue 27: a confidence of 7 was stored.
    expect([r.status, r.json]).toEqual([
      422,
      {
        detail: [
          {
            loc: ["body", "items", 0, "confidence"],
            msg: "ensure this value is less than or equal to 1",
            type: "value_error.number.not_le",
          },
          {
            loc: ["body", "items", 1, "confidence"],
            msg: "ensure this value is greater than or equal to 0",
            type: "value_error.number.not_ge",
          },
        ],
      },
    ]);
  });
});

describe("JSON bodies that are not UTF-8", () => {
  const bytes = (...parts: (string | number[])[]) =>
    Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p))));

  it("a push is a 422 naming each field and key the bad bytes are in", async () => {
    const body = bytes(
      '{"items":[{"id":"sm',
      [0xff],
      '","source_column":"c"},{"source_column":"d',
      [0xe2, 0x82],
      '","x',
      [0xc0],
      '":1}]}',
    );
    const r = await send(
      `/api/v1/sync/projects/${h.projectId}/schema-mappings/bulk`,
      body,
      "application/json",
    );
    // Issue 27: the id was stored as "sm\uFFFD" and the push answered 200.
    expect(r).toEqual({
      status: 422,
      json: {
        detail: [
          {
            loc: ["body", "items", 0, "id"],
            msg: "invalid UTF-8 (0xff); the body must be UTF-8",
            type: "value_error.utf8",
          },
          {
            loc: ["body", "items", 1, "source_column"],
            msg: "invalid UTF-8 (0xe2 0x82); the body must be UTF-8",
            type: "value_error.utf8",
          },
          {
            loc: ["body", "items", 1, "x\udcc0"],
            msg: "invalid UTF-8 (0xc0); the body must be UTF-8",
            type: "value_error.utf8",
          },
        ],
      },
    });
    const pulled = await h.request("GET", `/api/v1/sync/projects/${h.projectId}/schema-mappings`);
    expect((pulled.json as { total: number }).total).toBe(0);
  });

  it("a cross-map call is a 422 naming the record's field, found by the map worker", async () => {
    const body = bytes(
      '{"source_standard":"omop_cdm_v5.4","target_standard":"fhir_r4","source_entity":"person","records":[{"person_id":1,"person_source_value":"DOE',
      [0xff],
      '"}]}',
    );
    const r = await send("/api/v1/cross-mapping/map", body, "application/json");
    expect(r).toEqual({
      status: 422,
      json: {
        detail: [
          {
            loc: ["body", "records", 0, "person_source_value"],
            msg: "invalid UTF-8 (0xff); the body must be UTF-8",
            type: "value_error.utf8",
          },
        ],
      },
    });
  });
});

describe("crossmap export", () => {
  it("quotes source columns that are not plain names, so check --strict takes the file and map reads them", async () => {
    const created = await h.request("POST", "/api/v1/projects", {
      body: { name: "odd columns", target_model: "omop_cdm_v5.4" },
    });
    const q = (created.json as { id: string }).id;
    const columns = ["a: b", "#c", "*alias", "a.b", "Patient ID", "ok"];
    const targets = [
      "person_source_value",
      "gender_source_value",
      "race_source_value",
      "ethnicity_source_value",
      "person_id",
      "year_of_birth",
    ];
    const pushed = await h.request("POST", `/api/v1/sync/projects/${q}/schema-mappings/bulk`, {
      body: {
        items: columns.map((c, i) => ({
          source_table: "patients",
          source_column: c,
          target_table: "person",
          target_column: targets[i],
          status: "approved",
        })),
      },
    });
    expect(pushed.status).toBe(200);
    const r = await h.request("GET", `/api/v1/projects/${q}/exports/crossmap?source=site`);
    expect(r.status, r.text).toBe(200);
    expect(r.text.split("\n").filter((l) => /^ {2}'?patients\./.test(l))).toEqual([
      '  patients."Patient ID":',
      "  patients.ok:",
      "  'patients.\"a: b\"':",
      '  patients."#c":',
      '  patients."*alias":',
      '  patients."a.b":',
    ]);
    const dir = mkdtempSync(join(tmpdir(), "crossmap-export-"));
    try {
      const file = join(dir, "exported.yaml");
      writeFileSync(file, r.text);
      // Issue 27: the file failed check --strict (malformed path "a: b").
      const check = await runCli(["check", "--strict", file]);
      expect(check.code, check.stdout + check.stderr).toBe(0);
      const mapped = await runCli(["map", "--crossmap", file, "--entity", "patients"], {
        stdin: '{"a: b":"AB","#c":"C","*alias":"AL","a.b":"DOT","Patient ID":"7","ok":"1990"}\n',
      });
      expect(mapped.code, mapped.stderr).toBe(0);
      expect(JSON.parse(mapped.stdout)).toEqual({
        person_id: 7,
        year_of_birth: 1990,
        person_source_value: "AB",
        gender_source_value: "C",
        race_source_value: "AL",
        ethnicity_source_value: "DOT",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
