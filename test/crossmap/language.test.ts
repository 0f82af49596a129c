// The language beyond one record to one record: outputs, conditions, routing, for_each, ids, parameters,
// deduplication and gathering, and the load errors for each kind of mistake.
import { describe, expect, it } from "vitest";
import { gather } from "../../src/crossmap/gather.js";
import { parseCrossmap } from "../../src/crossmap/load.js";
import type { MapAllResult } from "../../src/crossmap/types.js";
import { deriveId } from "../../src/transforms/derived-id.js";
import { loadError } from "../helpers.js";

const doc = (entityMap: string, fieldMap: string, extra = "") =>
  `source: s\ntarget: t\nentity_map:\n${entityMap}\nfield_map:\n${fieldMap}\n${extra}`;

const mapAll = (
  text: string,
  entity: string,
  record: Record<string, unknown>,
  options = {},
): MapAllResult => {
  const m = parseCrossmap(text, options).mapper(entity);
  if (!m.mapAll) throw new Error("not a multi-output mapper");
  return m.mapAll(record, 1);
};
const values = (r: MapAllResult) => r.outputs.map((o) => [o.entity, o.value]);

describe("outputs", () => {
  it("keeps the spec's one-to-one form on the plain mapper", () => {
    const m = parseCrossmap(doc("  e: T", "  e.a: {target: T.a}")).mapper("e");
    expect(m.multi).toBeUndefined();
    expect(m.map({ a: 1 })).toEqual({ value: { a: 1 }, issues: [] });
  });
  it("produces every output of a list, named by target or name, with one entry writing several", () => {
    const text = doc(
      "  IN1:\n    - {target: Coverage}\n    - {target: Organization, name: payor}",
      "  IN1.id: {target: [Coverage.id, payor.id]}\n  IN1.name: {target: payor.name}",
    );
    expect(values(mapAll(text, "IN1", { id: "c1", name: "BCBS" }))).toEqual([
      ["Coverage", { id: "c1" }],
      ["Organization", { id: "c1", name: "BCBS" }],
    ]);
    // map() gives the first output, for callers of the spec's form
    expect(parseCrossmap(text).mapper("IN1").map({ id: "c1" }).value).toEqual({ id: "c1" });
  });
});

describe("conditions", () => {
  const text = (when: string) => doc(`  e:\n    - {target: T, when: ${when}}`, "  e.a: {target: T.a}");
  const holds = (when: string, record: Record<string, unknown>) =>
    mapAll(text(when), "e", { a: 1, ...record }).outputs.length === 1;
  it("equals compares string forms", () => {
    expect(holds("{field: c, equals: 8507}", { c: "8507" })).toBe(true);
    expect(holds("{field: c, equals: 8507}", { c: 8507n })).toBe(true);
    expect(holds("{field: c, equals: 8507}", { c: 8532 })).toBe(false);
  });
  it("in, present, matches, and a list holds when any element does", () => {
    expect(holds("{field: t, in: [ORM, OML]}", { t: "OML" })).toBe(true);
    expect(holds("{field: t, in: [ORM, OML]}", { t: "ORU" })).toBe(false);
    expect(holds("{field: d, present: true}", { d: "" })).toBe(false);
    expect(holds("{field: d, present: false}", { d: null })).toBe(true);
    // Whitespace only is no value, as the mapper reads it (an OBX-2 of one space is empty).
    expect(holds("{field: d, present: false}", { d: " \u00a0" })).toBe(true);
    expect(holds("{field: d, present: true}", { d: " x" })).toBe(true);
    expect(holds('{field: v, matches: "^(TX|FT)$"}', { v: "FT" })).toBe(true);
    expect(holds('{field: v, matches: "^(TX|FT)$"}', { v: "FTX" })).toBe(false);
    expect(holds("{field: codes, in: [b]}", { codes: ["a", "b"] })).toBe(true);
  });
  it("all, any and not", () => {
    const w =
      "{all: [{field: a, present: true}, {any: [{field: b, equals: 1}, {not: {field: c, present: true}}]}]}";
    expect(holds(w, { b: 1, c: 2 })).toBe(true);
    expect(holds(w, { b: 2, c: 2 })).toBe(false);
    expect(holds(w, { b: 2 })).toBe(true);
  });
  it("tests a transform's output", () => {
    const w = "{field: g, transform: sex, equals: male}";
    const t = doc(
      `  e:\n    - {target: T, when: ${w}}`,
      "  e.a: {target: T.a}",
      "transforms:\n  sex: {type: value_map, mapping: {M: male}}\n",
    );
    expect(mapAll(t, "e", { a: 1, g: "M" }).outputs).toHaveLength(1);
    expect(mapAll(t, "e", { a: 1, g: "F" }).outputs).toHaveLength(0);
  });
  it("on a field entry: the field is read only when it holds", () => {
    const t = doc("  e: T", "  e.a: {target: T.a, when: {field: k, equals: yes}}\n  e.b: {target: T.b}");
    const m = parseCrossmap(t).mapper("e");
    expect(m.map({ a: 1, b: 2, k: "yes" }).value).toEqual({ a: 1, b: 2 });
    expect(m.map({ a: 1, b: 2, k: "no" }).value).toEqual({ b: 2 });
  });
  it("is false without a vocabulary when the transform needs one and vocabulary_optional is set", () => {
    const w =
      "{field: code, transform: {type: vocabulary_reverse_lookup, output: domain_id}, vocabulary_optional: true, equals: Measurement}";
    const t = doc(
      `  e:\n    - choose:\n      - {target: M, when: ${w}}\n      - {target: O}`,
      "  e.a: {target: [M.a, O.a]}",
    );
    expect(values(mapAll(t, "e", { a: 1, code: { system: "http://loinc.org", code: "8480-6" } }))).toEqual([
      ["O", { a: 1 }],
    ]);
  });
});

describe("routing with choose", () => {
  const text = doc(
    "  obs:\n    - choose:\n      - {target: measurement, when: {field: kind, equals: lab}}\n      - {target: condition_occurrence, when: {field: kind, equals: dx}}",
    "  obs.id: {target: [measurement.measurement_id, condition_occurrence.condition_occurrence_id]}",
  );
  it("takes the first alternative that holds", () => {
    expect(values(mapAll(text, "obs", { id: 1, kind: "dx" }))).toEqual([
      ["condition_occurrence", { condition_occurrence_id: 1 }],
    ]);
  });
  it("warns no_route when none holds and there is no default", () => {
    const r = mapAll(text, "obs", { id: 1, kind: "other" });
    expect(r.outputs).toEqual([]);
    expect(r.issues).toEqual([
      {
        record: 1,
        field: "obs",
        target: "measurement|condition_occurrence",
        code: "no_route",
        severity: "warning",
        message:
          "no alternative of obs's choose (measurement, condition_occurrence) applies to this record, and there is no default",
      },
    ]);
  });
});

describe("exclude", () => {
  const exclude =
    "exclude:\n  obs:\n    - {when: {field: status, equals: entered-in-error}, reason: entered in error}\n    - {when: {field: tags, in: [test]}, reason: a test record}";
  it("leaves a record out with one excluded warning naming the first rule that holds; others map as before", () => {
    const text = doc("  obs: measurement", "  obs.id: {target: measurement.measurement_id}", exclude);
    const m = parseCrossmap(text).mapper("obs");
    // An entity with exclusions takes the entity mapper, even in the one-to-one form.
    expect(m.multi).toBe(true);
    const out = mapAll(text, "obs", { id: 1, status: "entered-in-error", tags: ["test"] });
    expect(out).toEqual({
      outputs: [],
      issues: [
        {
          record: 1,
          field: "obs",
          target: "",
          code: "excluded",
          severity: "warning",
          message: "left out: entered in error",
        },
      ],
    });
    expect(mapAll(text, "obs", { id: 2, tags: ["x", "test"] }).issues[0]?.message).toBe(
      "left out: a test record",
    );
    expect(mapAll(text, "obs", { id: 3, status: "final", tags: ["x"] })).toEqual({
      outputs: [{ output: "obs.measurement", entity: "measurement", value: { measurement_id: 3 } }],
      issues: [],
    });
  });
  it("reports an entity entity_map lacks, a bad condition and a rule without reason at load", () => {
    const bad = (extra: string) =>
      loadError(doc("  obs: measurement", "  obs.id: {target: measurement.measurement_id}", extra));
    expect(bad("exclude:\n  other:\n    - {when: {field: a, present: true}, reason: r}")).toContain(
      'x.yaml:9:5: exclude.other: exclude for "other", which is no entity_map source entity (entities: obs)',
    );
    expect(bad("exclude:\n  obs:\n    - {when: {field: a}, reason: r}")).toContain(
      "exclude.obs[0].when: a condition needs one test: equals, in, present or matches",
    );
    expect(bad("exclude:\n  obs:\n    - {when: {field: a, present: true}}")).toContain(
      "exclude.obs[0].reason",
    );
  });
});

describe("for_each and derived ids", () => {
  const text = doc(
    "  Observation:\n    - target: measurement\n      for_each: component\n      id: {source: id, salt: c, format: text}",
    "  Observation.$id: {target: measurement.measurement_source_value}\n  Observation.component[*].v: {target: measurement.value_as_number}\n  Observation.$index: {target: measurement.index}\n  Observation.subject: {target: measurement.person_id}",
  );
  it("gives one record per element, with the record's fields, the element's, its index and an id per element", () => {
    const r = mapAll(text, "Observation", { id: "o1", subject: 7, component: [{ v: 1 }, { v: 2 }] });
    expect(values(r)).toEqual([
      ["measurement", { measurement_source_value: "o1-0", value_as_number: 1, index: 0, person_id: 7 }],
      ["measurement", { measurement_source_value: "o1-1", value_as_number: 2, index: 1, person_id: 7 }],
    ]);
    expect(r.outputs.map((o) => o.id)).toEqual(["o1-0", "o1-1"]);
  });
  it("gives nothing for an absent or empty list, and treats a lone object as a list of one", () => {
    expect(mapAll(text, "Observation", { id: "o1" }).outputs).toEqual([]);
    expect(mapAll(text, "Observation", { id: "o1", component: [] }).outputs).toEqual([]);
    expect(mapAll(text, "Observation", { id: "o1", component: { v: 5 } }).outputs).toHaveLength(1);
  });
  it("derives ids as a pure function: uuid, integer and text, references counting by their id", () => {
    expect(deriveId(["abc"], "Practitioner", "uuid")).toBe(
      deriveId(["urn:uuid:abc"], "Practitioner", "uuid"),
    );
    expect(deriveId(["abc"], "Practitioner", "uuid")).toBe(deriveId(["Patient/abc"], "Practitioner", "uuid"));
    expect(deriveId(["abc"], "Practitioner", "uuid")).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(deriveId(["abc"], "a", "uuid")).not.toBe(deriveId(["abc"], "b", "uuid"));
    expect(deriveId(["abc"], "a", "integer", 1)).toBe(deriveId(["abc"], "a", "integer", 1));
    expect(deriveId(["abc"], "a", "integer", 1)).not.toBe(deriveId(["abc"], "a", "integer", 2));
    expect(deriveId([undefined, ""], "a", "uuid")).toBeUndefined();
    expect(deriveId(["has space"], "a", "text")).toBeUndefined();
  });
  it("dedupes the outputs of one record by id, filling in what the first lacks", () => {
    const t = doc(
      "  OBR:\n    - {target: Practitioner, name: a, id: {source: p, salt: P}, dedupe: true}\n    - {target: Practitioner, name: b, id: {source: p, salt: P}, dedupe: true}",
      "  OBR.p: {target: [a.identifier, b.identifier]}\n  OBR.n: {target: b.name}",
    );
    expect(values(mapAll(t, "OBR", { p: "3850", n: "Jones" }))).toEqual([
      ["Practitioner", { identifier: "3850", name: "Jones" }],
    ]);
  });
});

describe("parameters", () => {
  const text = doc("  e: T", "  e.$param.lang: {target: T.language}", "parameters:\n  lang: {default: en}\n");
  it("reads the run's value, else the default", () => {
    expect(parseCrossmap(text).mapper("e").map({}).value).toEqual({ language: "en" });
    expect(
      parseCrossmap(text, { parameters: { lang: "de" } })
        .mapper("e")
        .map({}).value,
    ).toEqual({ language: "de" });
  });
});

describe("gathering", () => {
  const text = doc(
    '  visit: {target: COMPOSITION, key: id}\n  cond:\n    target: EVALUATION\n    into: {parent: COMPOSITION, key: visit_id, at: "content[+]"}',
    "  visit.id: {target: COMPOSITION.uid}\n  cond.code: {target: EVALUATION.code}",
  );
  it("places children in their parent's record, in input order, and names orphans", () => {
    const cm = parseCrossmap(text);
    const items = [
      { entity: "cond", record: { code: "a", visit_id: 1 } },
      { entity: "visit", record: { id: 1 } },
      { entity: "cond", record: { code: "b", visit_id: "1" } },
      { entity: "cond", record: { code: "c", visit_id: 2 } },
    ].flatMap(({ entity, record }, i) =>
      (cm.mapper(entity).mapAll?.(record, i) ?? { outputs: [] }).outputs.map((o) => ({ ...o, place: i })),
    );
    const g = gather(cm.gatherPlan, items);
    expect(g.top.map((t) => t.value)).toEqual([{ uid: 1, content: [{ code: "a" }, { code: "b" }] }]);
    expect(g.orphans.map((o) => o.place)).toEqual([3]);
  });
  it("reports a record with none of its into keys, and does not produce it", () => {
    const r = mapAll(text, "cond", { code: "a" });
    expect(r.outputs).toEqual([]);
    expect(r.issues[0]?.code).toBe("no_parent_key");
  });
  it("keys by a transform's output: entries of one person and day, at any time of it, share one parent", () => {
    const t = doc(
      [
        "  obs:",
        "    - target: OBSERVATION",
        '      into: {parent: day, key: [subject, {field: time, transform: day}], at: "content[+]"}',
        "    - target: COMPOSITION",
        "      name: day",
        '      key: [subject, {field: time, transform: format, config: {pattern: "%Y-%m-%d"}}]',
        "      dedupe: true",
      ].join("\n"),
      "  obs.code: {target: OBSERVATION.code}\n  obs.time: {target: day.start}",
      'transforms:\n  day: {type: format, pattern: "%Y-%m-%d"}\n',
    );
    const cm = parseCrossmap(t);
    const records = [
      { code: "a", subject: "urn:uuid:p1", time: "2020-03-01T10:15:00+01:00" },
      { code: "b", subject: "Patient/p1", time: "2020-03-01T23:00:00+01:00" },
      { code: "c", subject: "p1", time: "2020-03-02T08:00:00+01:00" },
      { code: "d", subject: "p1", time: "not a date" },
    ];
    const items = records.flatMap((record, i) =>
      (cm.mapper("obs").mapAll?.(record, i) ?? { outputs: [] }).outputs.map((o) => ({ ...o, place: i })),
    );
    expect(items.map((i) => i.into?.key)).toEqual([
      "p1\u00002020-03-01",
      undefined,
      "p1\u00002020-03-01",
      undefined,
      "p1\u00002020-03-02",
      undefined,
      "p1\u0000",
      undefined,
    ]);
    const g = gather(cm.gatherPlan, items);
    expect(g.top.map((x) => x.value)).toEqual([
      { start: "2020-03-01T10:15:00+01:00", content: [{ code: "a" }, { code: "b" }] },
      { start: "2020-03-02T08:00:00+01:00", content: [{ code: "c" }] },
      { start: "not a date", content: [{ code: "d" }] },
    ]);
  });
  it("reports an unknown transform in a key part where it is written", () => {
    expect(
      loadError(doc("  e:\n    - {target: A, key: [a, {field: t, transform: dya}]}", "  e.x: {target: A.x}")),
    ).toContain("entity_map.e[0].key[1]");
  });
});

describe("merging siblings by id", () => {
  // Two rows of one reading (systolic, diastolic): one entry in their visit with both values and both row ids.
  const text = doc(
    [
      "  visit: {target: COMPOSITION, key: id}",
      "  m:",
      "    target: OBSERVATION",
      '    into: {parent: COMPOSITION, key: visit_id, at: "content[+]"}',
      "    id: {source: [person, time], salt: bp, format: text}",
      "    dedupe: true",
      '    merge_append: ["data.items", "ids"]',
    ].join("\n"),
    [
      "  visit.id: {target: COMPOSITION.uid}",
      '  m.row: {target: "OBSERVATION.ids[+]"}',
      "  m.time: {target: OBSERVATION.time}",
      '  m.sys: {target: "OBSERVATION.data.items[+]"}',
      '  m.dia: {target: "OBSERVATION.data.items[+]"}',
    ].join("\n"),
  );
  const run = (records: { entity: string; record: Record<string, unknown> }[]) => {
    const cm = parseCrossmap(text);
    const items = records.flatMap(({ entity, record }, i) =>
      (cm.mapper(entity).mapAll?.(record, i) ?? { outputs: [] }).outputs.map((o) => ({ ...o, place: i })),
    );
    return gather(cm.gatherPlan, items);
  };
  it("merges children of one parent with one id into the first: lists appended, the rest filled in", () => {
    const g = run([
      { entity: "visit", record: { id: 1 } },
      { entity: "m", record: { row: 10, visit_id: 1, person: "p", time: "t1", sys: 120 } },
      { entity: "m", record: { row: 11, visit_id: 1, person: "p", time: "t1", dia: 80 } },
      { entity: "m", record: { row: 12, visit_id: 1, person: "p", time: "t2", sys: 130 } },
    ]);
    expect(g.top.map((t) => t.value)).toEqual([
      {
        uid: 1,
        content: [
          { ids: [10, 11], time: "t1", data: { items: [120, 80] } },
          { ids: [12], time: "t2", data: { items: [130] } },
        ],
      },
    ]);
    expect(g.merged).toBe(1);
  });
  it("keeps children with one id apart when they go into different parents", () => {
    const g = run([
      { entity: "visit", record: { id: 1 } },
      { entity: "visit", record: { id: 2 } },
      { entity: "m", record: { row: 10, visit_id: 1, person: "p", time: "t1", sys: 120 } },
      { entity: "m", record: { row: 11, visit_id: 2, person: "p", time: "t1", dia: 80 } },
    ]);
    expect(g.top.map((t) => (t.value.content as unknown[]).length)).toEqual([1, 1]);
    expect(g.merged).toBe(0);
  });
  it("without merge_append, the first's lists stay as they are", () => {
    const cm = parseCrossmap(text.replace('    merge_append: ["data.items", "ids"]\n', ""));
    const items = [
      { entity: "visit", record: { id: 1 } },
      { entity: "m", record: { row: 10, visit_id: 1, person: "p", time: "t1", sys: 120 } },
      { entity: "m", record: { row: 11, visit_id: 1, person: "p", time: "t1", dia: 80 } },
    ].flatMap(({ entity, record }, i) =>
      (cm.mapper(entity).mapAll?.(record, i) ?? { outputs: [] }).outputs.map((o) => ({ ...o, place: i })),
    );
    expect(gather(cm.gatherPlan, items).top[0]?.value.content).toEqual([
      { ids: [10], time: "t1", data: { items: [120] } },
    ]);
  });
  it("refuses merge_append without dedupe, and a path with [+]", () => {
    expect(loadError(text.replace("    dedupe: true\n", ""))).toContain(
      "entity_map.m.merge_append: merge_append says how records are merged: it needs dedupe: true",
    );
    expect(loadError(text.replace('"data.items", "ids"', '"data.items[+]"'))).toContain(
      'entity_map.m.merge_append[0]: "data.items[+]": a list to append to is named without [+] or [=]',
    );
  });
});

describe("one group of parents across entities", () => {
  // Rows of two tables without a visit: one composition per person and day, whichever table made it first.
  const day = (entity: string) =>
    [
      `  ${entity}:`,
      `    - target: ${entity.toUpperCase()}`,
      '      into: {parent: day, key: [person, date], at: "content[+]"}',
      "    - {target: COMPOSITION, name: day, key: [person, date], dedupe: true}",
    ].join("\n");
  const text = doc(
    `${day("cond")}\n${day("drug")}`,
    [
      "  cond.code: {target: COND.code}",
      "  cond.date: {target: day.start}",
      "  drug.code: {target: DRUG.code}",
      "  drug.date: {target: day.start}",
      "  drug.person: {target: day.person}",
    ].join("\n"),
  );
  it("merges parents of outputs with one name, key and dedupe from several entities, and gathers every child into it", () => {
    const cm = parseCrossmap(text);
    const items = [
      { entity: "cond", record: { code: "c1", person: "p", date: "2020-01-01" } },
      { entity: "drug", record: { code: "d1", person: "p", date: "2020-01-01" } },
      { entity: "drug", record: { code: "d2", person: "p", date: "2020-01-02" } },
      { entity: "cond", record: { code: "c2", person: "p", date: "2020-01-01" } },
    ].flatMap(({ entity, record }, i) =>
      (cm.mapper(entity).mapAll?.(record, i) ?? { outputs: [] }).outputs.map((o) => ({ ...o, place: i })),
    );
    const g = gather(cm.gatherPlan, items);
    expect(g.top.map((t) => t.value)).toEqual([
      { start: "2020-01-01", person: "p", content: [{ code: "c1" }, { code: "d1" }, { code: "c2" }] },
      { start: "2020-01-02", person: "p", content: [{ code: "d2" }] },
    ]);
    expect(g.merged).toBe(2);
  });
  it("still refuses a name of several outputs that are not all keyed and deduplicated", () => {
    expect(
      loadError(
        text.replace(
          "    - {target: COMPOSITION, name: day, key: [person, date], dedupe: true}",
          "    - {target: COMPOSITION, name: day, key: [person, date]}",
        ),
      ),
    ).toContain(
      '"day" names outputs of several entities (cond.day, drug.day); write it as <source entity>.<output name>, or give each of them a key and dedupe: true to make them one group of parents',
    );
  });
});

describe("load errors for each kind of mistake, located", () => {
  it("a field target naming no output of its entity", () => {
    expect(
      loadError(doc("  e:\n    - {target: A}\n    - {target: B, name: b}", "  e.x: {target: C.x}")),
    ).toBe(
      'crossmap x.yaml is invalid (1 problem)\n  x.yaml:8:17: field_map["e.x"].target: target "C.x" must start with the name of an output of e: A, b',
    );
  });
  it("two outputs with one name", () => {
    expect(loadError(doc("  e:\n    - {target: A}\n    - {target: A}", "  e.x: {target: A.x}"))).toBe(
      'crossmap x.yaml is invalid (1 problem)\n  x.yaml:6:7: entity_map.e[1]: e already has an output named "A"; give this one a distinct "name"',
    );
  });
  it("a condition on a malformed path, with no test, with an unsafe regular expression", () => {
    expect(
      loadError(doc('  e:\n    - {target: A, when: {field: "a..b", present: true}}', "  e.x: {target: A.x}")),
    ).toContain('x.yaml:5:33: entity_map.e[0].when.field: malformed path "a..b": "" is not a valid name');
    expect(loadError(doc("  e:\n    - {target: A, when: {field: a}}", "  e.x: {target: A.x}"))).toContain(
      "x.yaml:5:25: entity_map.e[0].when: a condition needs one test: equals, in, present or matches",
    );
    expect(
      loadError(doc('  e:\n    - {target: A, when: {field: a, matches: "(a+)+$"}}', "  e.x: {target: A.x}")),
    ).toContain(
      'entity_map.e[0].when.matches: "matches" refuses a repeated group that contains a repetition or an alternation (it can take exponential time)',
    );
  });
  it("a default alternative that is not last", () => {
    expect(
      loadError(
        doc(
          "  e:\n    - choose:\n      - {target: A}\n      - {target: B, when: {field: a, present: true}}",
          "  e.x: {target: A.x}",
        ),
      ),
    ).toContain(
      "x.yaml:6:9: entity_map.e[0].choose[0]: an alternative without `when` is the default and must come last",
    );
  });
  it("[*] outside its for_each, and $id of an output without an id", () => {
    expect(loadError(doc("  e: T", "  e.c[*].v: {target: T.v}"))).toContain(
      '"c[*].v" reads the elements of c, but this output has no for_each',
    );
    expect(
      loadError(doc("  e:\n    - {target: T}\n    - {target: U}", "  e.$id.U: {target: T.ref}")),
    ).toContain('"$id.U": output "U" declares no id');
  });
  it("a gathering parent no output declares, a parent without key, and a cycle", () => {
    expect(
      loadError(
        doc('  e:\n    target: T\n    into: {parent: P, key: k, at: "x[+]"}', "  e.a: {target: T.a}"),
      ),
    ).toContain('x.yaml:6:20: entity_map.e.into.parent: no output is named "P" (outputs: T)');
    expect(
      loadError(
        doc('  p: P\n  e:\n    target: T\n    into: {parent: P, key: k, at: "x[+]"}', "  e.a: {target: T.a}"),
      ),
    ).toContain('entity_map.e.into.parent: output "p.P" declares no key for records to be gathered into it');
    expect(
      loadError(
        doc(
          '  a:\n    target: A\n    key: k\n    into: {parent: B, key: k, at: "x[+]"}\n  b:\n    target: B\n    key: k\n    into: {parent: A, key: k, at: "x[+]"}',
          "  a.k: {target: A.k}\n  b.k: {target: B.k}",
        ),
      ),
    ).toContain("gathering goes round in a circle: a.A -> b.B -> a.A");
  });
  it("an unknown parameter", () => {
    expect(loadError(doc("  e: T", "  e.$param.lang: {target: T.l}"))).toContain(
      'unknown parameter "lang"; the crossmap declares no parameters',
    );
  });
});
