import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { composePlan } from "../../src/pipeline/plan.js";
import { createBatchMapper } from "../../src/pipeline/stage.js";
import type { LinesBatch } from "../../src/pipeline/types.js";
import { crossmapOf, personToPatient } from "./fake-crossmap.js";

const plan = composePlan([crossmapOf("omop_cdm_v5.4", "fhir_r4", [personToPatient()])]);
const tenLines = readFileSync(new URL("../fixtures/map/ten-persons.ndjson", import.meta.url));

function lines(text: string | Uint8Array, extra: Partial<LinesBatch> = {}): LinesBatch {
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  return {
    kind: "lines",
    file: "in.ndjson",
    entity: "person",
    bundles: false,
    firstLine: 1,
    text: bytes,
    ...extra,
  };
}

const MALFORMED_4 = {
  file: "in.ndjson",
  line: 4,
  code: "malformed_json",
  severity: "error",
  message: "malformed JSON: Expected ',' or '}' after property value in JSON at position 74",
};

describe("the mapping stage", () => {
  it("skips a malformed line, keeps a record with an unmappable value, and reports both", () => {
    const result = createBatchMapper(plan, { onError: "skip", perEntity: false })(lines(tenLines));
    const out = String(result.output[""]).trimEnd().split("\n");
    expect(out).toHaveLength(9);
    expect(out[3]).toBe('{"resourceType":"Patient","id":"5","gender":"unknown","birthDate":"1972-12-01"}');
    expect(out[5]).toBe('{"resourceType":"Patient","id":"7","birthDate":"1980-02-29"}');
    expect(out[6]).toBe(
      '{"resourceType":"Patient","id":"1741351032930224901","gender":"male","birthDate":"1990-05-05"}',
    );
    expect(result.issues).toEqual([
      MALFORMED_4,
      {
        file: "in.ndjson",
        line: 7,
        entity: "person",
        field: "person.gender_concept_id",
        target: "Patient.gender",
        code: "unmapped_value",
        severity: "error",
        message: 'no value_map entry for "abc"',
        value: "abc",
      },
    ]);
    expect(result).toMatchObject({ recordsIn: 10, recordsOut: 9, recordsFailed: 1, recordsWithErrors: 2 });
    expect(result.fatal).toBeUndefined();
  });

  it("with --on-error fail stops at line 4 and keeps only what came before", () => {
    const result = createBatchMapper(plan, { onError: "fail", perEntity: false })(lines(tenLines));
    expect(
      String(result.output[""])
        .trimEnd()
        .split("\n")
        .map((l: string) => JSON.parse(l).id),
    ).toEqual(["1", "2", "3"]);
    expect(result.fatal).toEqual(MALFORMED_4);
    expect(result).toMatchObject({ recordsIn: 4, recordsOut: 3, recordsFailed: 1 });
  });

  it("counts lines from the batch's first line, across CRLF, blank lines and a BOM", () => {
    const text = '\ufeff{"person_id": 1}\r\n\r\n[1]\r\n"x"\n';
    const result = createBatchMapper(plan, { onError: "skip", perEntity: false })(
      lines(text, { firstLine: 1 }),
    );
    expect(result.output[""]).toBe('{"resourceType":"Patient","id":"1"}\n');
    expect(result.issues.map((i) => [i.line, i.message])).toEqual([
      [
        3,
        "expected a JSON object, got an array; to map the elements of a JSON array, give --format json-array",
      ],
      [4, "expected a JSON object, got a string"],
    ]);
    const later = createBatchMapper(plan, { onError: "skip", perEntity: false })(
      lines("\nnope\n", { firstLine: 41 }),
    );
    expect(later.issues[0]).toMatchObject({ line: 42, code: "malformed_json" });
  });

  it("takes the entity from resourceType when the file does not name one, and says so when neither does", () => {
    const result = createBatchMapper(plan, { onError: "skip", perEntity: true })(
      lines('{"resourceType": "person", "person_id": 1}\n{"person_id": 2}\n{"resourceType": "visit"}\n', {
        entity: undefined,
      }),
    );
    expect(result.output).toEqual({ Patient: '{"resourceType":"Patient","id":"1"}\n' });
    expect(result.issues.map((i) => `${i.line} ${i.code}: ${i.message}`)).toEqual([
      "2 unknown_entity: cannot tell the source entity: the record has no resourceType and the file name names no entity of the crossmap; give --entity",
      '3 unknown_entity: the crossmap has no mapping for source entity "visit"',
    ]);
  });

  it("maps Bundle entries by resourceType, counting the kinds it has no mapping for and naming each one left out", () => {
    const bundle = {
      resourceType: "Bundle",
      entry: [
        { resource: { resourceType: "person", person_id: 1, gender_concept_id: 8532 } },
        { resource: { resourceType: "Encounter", id: "e" } },
        { fullUrl: "urn:uuid:x" },
        { resource: { resourceType: "Encounter", id: "f" } },
        { request: { method: "DELETE", url: "Patient/2" } },
      ],
    };
    const text = `${JSON.stringify(bundle)}\n{"resourceType": "Patient"}\n`;
    const result = createBatchMapper(plan, { onError: "skip", perEntity: false })(
      lines(text, { entity: undefined, bundles: true }),
    );
    expect(result.output[""]).toBe('{"resourceType":"Patient","id":"1","gender":"female"}\n');
    expect(result.skipped).toEqual({ Encounter: 2, "DELETE request": 1 });
    expect(result.issues.map((i) => [i.line, i.entry, i.severity, i.message])).toEqual([
      [1, 1, "warning", "Encounter/e is left out: the crossmap has no mapping for Encounter"],
      [1, 2, "error", "entry has no resource object"],
      [1, 3, "warning", "Encounter/f is left out: the crossmap has no mapping for Encounter"],
      [1, 4, "warning", "a DELETE Patient/2 request without a resource: nothing to map, left out"],
      [2, undefined, "error", 'expected a FHIR Bundle, got resourceType "Patient"'],
    ]);
  });

  it("reports a line that is not UTF-8 instead of mapping U+FFFD, and maps the lines around it", () => {
    const bytes = Buffer.concat([
      Buffer.from('{"person_id": 1}\n{"person_id": 2, "person_source_value": "caf'),
      Buffer.from([0xe9]),
      Buffer.from('"}\n{"person_id": 3, "x": "\u00e9 \ufffd"}\n'),
    ]);
    const result = createBatchMapper(plan, { onError: "skip", perEntity: false })(
      lines(bytes, { firstLine: 7 }),
    );
    expect(result.output[""]).toBe(
      '{"resourceType":"Patient","id":"1"}\n{"resourceType":"Patient","id":"3"}\n',
    );
    expect(result.issues).toEqual([
      {
        file: "in.ndjson",
        line: 8,
        code: "invalid_utf8",
        severity: "error",
        message:
          "invalid UTF-8 (0xe9) at byte 45 of the line; the record is not read (the input must be UTF-8)",
      },
    ]);
    expect(result).toMatchObject({ recordsIn: 3, recordsOut: 2, recordsFailed: 1 });
  });

  it("hints at --format fhir-bundle for a Bundle read as a record", () => {
    const result = createBatchMapper(plan, { onError: "skip", perEntity: false })(
      lines('{"resourceType": "Bundle", "entry": []}\n', { entity: undefined }),
    );
    expect(result.issues.map((i) => i.message)).toEqual([
      'the crossmap has no mapping for source entity "Bundle"; to map the entries of FHIR Bundles, give --format fhir-bundle',
    ]);
  });
});
