// Ids from business identifiers (`id: {identity: [...]}`): the first candidate whose required values are
// present gives the id, the same values always the same id; none present falls back, said so.
import { describe, expect, it } from "vitest";
import { identityText } from "../../src/crossmap/identity.js";
import { parseCrossmap } from "../../src/crossmap/load.js";
import type { MapAllResult } from "../../src/crossmap/types.js";
import { deriveId } from "../../src/transforms/derived-id.js";
import { loadError } from "../helpers.js";

const doc = (entityMap: string, fieldMap: string) =>
  `source: s\ntarget: t\nentity_map:\n${entityMap}\nfield_map:\n${fieldMap}\n`;

const PERSON = [
  "  person:",
  "    target: Patient",
  "    id:",
  "      salt: Patient",
  "      identity:",
  "        - {name: mrn, require: mrn.value, with: [mrn.authority]}",
  "        - {name: ssn, require: ssn}",
  "      fallback: row",
  "  merged:",
  "    target: Patient",
  "    id:",
  "      salt: Patient",
  "      identity:",
  "        - {name: mrn, require: prior.value, with: prior.authority}",
].join("\n");
const FIELDS =
  "  person.$id: {target: Patient.id}\n  person.name: {target: Patient.name}\n  merged.$id: {target: Patient.id}";

const mapAll = (entity: string, record: Record<string, unknown>): MapAllResult => {
  const m = parseCrossmap(doc(PERSON, FIELDS)).mapper(entity);
  if (!m.mapAll) throw new Error("not a multi-output mapper");
  return m.mapAll(record, 1);
};
const idOf = (entity: string, record: Record<string, unknown>) => mapAll(entity, record).outputs[0]?.id;

describe("identity ids", () => {
  it("come from the first candidate whose required values are present, qualified by its `with` values", () => {
    const a = idOf("person", { mrn: { value: "123", authority: "HOSP" }, ssn: "999", row: "r1", name: "A" });
    expect(a).toBe(deriveId(["mrn", "123", "HOSP"], "Patient", "uuid", undefined, true));
    expect(idOf("person", { mrn: { value: "123", authority: "HOSP" }, row: "r2", name: "B" })).toBe(a);
    expect(idOf("person", { mrn: { value: "123", authority: "OTHER" }, row: "r1" })).not.toBe(a);
    expect(idOf("person", { mrn: { value: "123" }, row: "r1" })).not.toBe(a);
    expect(idOf("person", { ssn: "999", row: "r1" })).toBe(
      deriveId(["ssn", "999"], "Patient", "uuid", undefined, true),
    );
    expect(mapAll("person", { mrn: { value: "123" }, row: "r1" }).issues).toEqual([]);
  });

  it("are the same for candidates of one name in another entity (a merge's prior identifier)", () => {
    expect(idOf("merged", { prior: { value: "123", authority: "HOSP" } })).toBe(
      idOf("person", { mrn: { value: "123", authority: "HOSP" } }),
    );
  });

  it("take the identifier's text as it is, not the id part of something that looks like a reference", () => {
    expect(idOf("person", { ssn: "Patient/1" })).not.toBe(idOf("person", { ssn: "1" }));
  });

  it("fall back to the fallback value as the id, with a no_identity warning", () => {
    const r = mapAll("person", { row: "row-7", name: "C" });
    expect(r.outputs.map((o) => [o.id, o.value])).toEqual([["row-7", { id: "row-7", name: "C" }]]);
    expect(r.issues).toEqual([
      {
        record: 1,
        field: "person",
        target: "Patient.id",
        code: "no_identity",
        severity: "warning",
        message:
          "Patient: no business identifier is present (person.mrn.value, person.ssn); the id is person.row instead",
      },
    ]);
  });

  it("fall back to an id derived from `source`, as a plain id rule derives it", () => {
    const text = doc(
      "  p:\n    target: Practitioner\n    id: {salt: P, identity: [{require: num}], source: [family, given]}",
      "  p.$id: {target: Practitioner.id}",
    );
    const r = parseCrossmap(text).mapper("p").mapAll?.({ family: "Smith", given: "Ann" }, 2);
    expect(r?.outputs[0]?.id).toBe(deriveId(["Smith", "Ann"], "P", "uuid"));
    expect(r?.issues.map((i) => i.message)).toEqual([
      "Practitioner: no business identifier is present (p.num); the id is derived from p.family, p.given instead",
    ]);
  });

  it("count a node of numbered parts by its parts, so a bare name and the same name with parts agree", () => {
    expect(identityText({ 1: "HOSP" })).toBe("HOSP");
    expect(identityText("HOSP")).toBe("HOSP");
    expect(identityText({ 1: "HOSP", 3: "ISO" })).toBe("HOSP\u001f\u001fISO");
    expect(identityText({ a: 1 })).toBeUndefined();
    expect(identityText(" ")).toBeUndefined();
    // Trailing empty parts say nothing; a node of empty parts is no identity; parts nest; numbers are
    // written as components are ("01" and "0" are not component numbers).
    expect(identityText({ 1: "HOSP", 2: " ", 4: "" })).toBe("HOSP");
    expect(identityText({ 2: "", 3: " " })).toBeUndefined();
    expect(identityText({})).toBeUndefined();
    expect(identityText({ 2: "X" })).toBe("\u001fX");
    expect(identityText({ 1: { 1: "A", 2: "B" }, 2: 7 })).toBe("A\u001fB\u001f7");
    expect(identityText({ 1: "HOSP", "01": "X" })).toBeUndefined();
    expect(identityText({ 1: "HOSP", 0: "X" })).toBeUndefined();
    expect(identityText({ 10: "J", 1: "A" })).toBe(`A${"\u001f".repeat(9)}J`);
  });

  it("are refused at load when the rule is incomplete or contradictory", () => {
    const bad = (id: string) => loadError(doc(`  p:\n    target: T\n    id: ${id}`, "  p.a: {target: T.a}"));
    expect(bad("{salt: P}")).toContain(
      "an id rule needs source (the values it is derived from) or identity (business identifiers)",
    );
    expect(bad("{source: a, fallback: b}")).toContain(
      "fallback is what an id is when no identity applies: it needs identity",
    );
    expect(bad("{identity: [{require: a}], source: b, fallback: c}")).toContain(
      "give either source or fallback for when no identity applies, not both",
    );
    expect(bad("{identity: [{require: a, when: b}]}")).toContain('unknown key "when"');
  });
});
