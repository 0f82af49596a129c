// Transaction Bundles a server applies idempotently: every entry is `PUT <Type>/<id>` to an id that, for a
// patient, visit, doctor or order, comes from its business identifiers, so two messages about one patient
// update one Patient; references inside a Bundle name the final ids and all resolve.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TargetRecord } from "../../../src/crossmap/types.js";
import { convertText } from "../../../src/pipeline/hl7v2/index.js";
import { fhirProblems } from "../../support/fhir.js";
import { hl7v2Crossmap, issueLines, mapMessage } from "../../support/hl7v2.js";
import { FIXTURES_DIR } from "../../support/omop.js";

const MSH = (type: string, id: string, app = "ADT1", facility = "GOOD HEALTH HOSPITAL") =>
  `MSH|^~\\&|${app}|${facility}|||20230814022400+0200||${type}|${id}|P|2.5.1`;
const PID = "PID|1||PATID1234^^^GHH&2.16.840.1.113883.19&ISO^MR||EVERYMAN^ADAM||19800101|M";
const PV1 = "PV1|1|I|W^1^1^GHH||||||||||||||||V100^^^GHH^VN";
const ADT = [MSH("ADT^A01^ADT_A01", "M1"), "EVN|A01|20230814022400+0200", PID, PV1];
const ORU = [
  MSH("ORU^R01^ORU_R01", "M2", "LAB"),
  "PID|1||PATID1234^^^GHH&2.16.840.1.113883.19&ISO^MR||EVERYMAN^ADAM",
  PV1,
  "ORC|RE|PL1^EHR|FL1^LAB",
  "OBR|1|PL1^EHR|FL1^LAB|24331-1^Lipid panel^LN|||20230814010000+0200",
  "OBX|1|NM|2093-3^Cholesterol^LN||180|mg/dL^^UCUM|||||F|||20230814010000+0200",
  "OBX|2|NM|2571-8^Triglyceride^LN||120|mg/dL^^UCUM|||||F|||20230814010000+0200",
];

type Entry = { fullUrl: string; resource: TargetRecord; request?: { method: string; url: string } };
const entries = (b: TargetRecord) => (b.entry ?? []) as Entry[];
const references = (x: unknown): string[] =>
  JSON.stringify(x)
    .match(/"reference":"[^"]*"/g)
    ?.map((s) => s.slice(13, -1)) ?? [];
const idOf = (b: TargetRecord, type: string) =>
  entries(b).find((e) => e.resource.resourceType === type)?.resource.id;

describe("--bundle transaction", () => {
  it("PUTs every entry to its id, with its fullUrl the urn:uuid of that id, every reference resolving inside", async () => {
    const { bundle } = await mapMessage(ORU, { bundle: "transaction" });
    expect(bundle.type).toBe("transaction");
    const es = entries(bundle);
    expect(es.map((e) => [e.resource.resourceType, e.request])).toEqual(
      es.map((e) => [
        e.resource.resourceType,
        { method: "PUT", url: `${e.resource.resourceType}/${e.resource.id}` },
      ]),
    );
    for (const e of es) expect(e.fullUrl).toBe(`urn:uuid:${e.resource.id}`);
    const urls = new Set(es.map((e) => e.fullUrl));
    const refs = references(es.map((e) => e.resource));
    expect(refs.length).toBeGreaterThan(10);
    for (const r of refs) expect(urls.has(r), r).toBe(true);
    expect(fhirProblems(bundle)).toEqual([]);
  });

  it("gives one patient, one visit and one order the same ids in every message from the sender", async () => {
    const adt = (await mapMessage(ADT, { bundle: "transaction" })).bundle;
    const oru = (await mapMessage(ORU, { bundle: "transaction" })).bundle;
    const orm = (
      await mapMessage(
        [
          MSH("ORM^O01^ORM_O01", "M3", "EHR"),
          ORU[1] as string,
          "ORC|NW|PL1^EHR",
          "OBR|1|PL1^EHR||24331-1^Lipid panel^LN",
        ],
        { bundle: "transaction" },
      )
    ).bundle;
    expect(idOf(oru, "Patient")).toBe(idOf(adt, "Patient"));
    expect(idOf(orm, "Patient")).toBe(idOf(adt, "Patient"));
    expect(idOf(oru, "Encounter")).toBe(idOf(adt, "Encounter"));
    // The order the ORM placed is the one the ORU reports on: one ServiceRequest, by its placer number.
    expect(idOf(orm, "ServiceRequest")).toBe(idOf(oru, "ServiceRequest"));
    // ...and the message's own resources are the message's.
    expect(idOf(oru, "MessageHeader")).not.toBe(idOf(adt, "MessageHeader"));
    const put = (b: TargetRecord, type: string) =>
      entries(b).find((e) => e.resource.resourceType === type)?.request;
    expect(put(oru, "Patient")).toEqual(put(adt, "Patient"));
    expect(put(adt, "Patient")).toEqual({ method: "PUT", url: `Patient/${idOf(adt, "Patient")}` });
  });

  it("is the same Bundle every time the same message is mapped, so applying it again changes nothing", async () => {
    const a = (await mapMessage(ORU, { bundle: "transaction" })).bundle;
    const b = (await mapMessage(ORU, { bundle: "transaction" })).bundle;
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    // A re-sent message (same control id) updates the same results, not new ones.
    const resent = (
      await mapMessage([MSH("ORU^R01^ORU_R01", "M2-resent", "LAB"), ...ORU.slice(1)], {
        bundle: "transaction",
      })
    ).bundle;
    const ids = (x: TargetRecord, type: string) =>
      entries(x)
        .filter((e) => e.resource.resourceType === type)
        .map((e) => e.resource.id);
    for (const type of ["Patient", "Encounter", "ServiceRequest", "DiagnosticReport", "Observation"])
      expect(ids(resent, type), type).toEqual(ids(a, type));
  });

  it("keeps two senders' local numbers apart: an identifier without an authority counts within its facility", async () => {
    const local = (facility: string) =>
      mapMessage([MSH("ADT^A01", "M9", "ADT1", facility), "PID|1||12345^^^^MR||DOE^JOHN"]).then(
        (m) => m.of("Patient")[0]?.id,
      );
    expect(await local("HOSPITAL A")).toBe(await local("HOSPITAL A"));
    expect(await local("HOSPITAL A")).not.toBe(await local("HOSPITAL B"));
  });

  it("names the merged-away patient of an A40 with the id that patient had, linked from the survivor", async () => {
    const earlier = (
      await mapMessage([MSH("ADT^A01", "M1"), "PID|1||OLD1^^^GHH&2.16.840.1.113883.19&ISO^MR||DOE^JOHN"])
    ).of("Patient")[0];
    const merge = await mapMessage(
      [
        MSH("ADT^A40^ADT_A39", "M7"),
        "EVN|A40",
        "PID|1||NEW1^^^GHH&2.16.840.1.113883.19&ISO^MR||DOE^JOHN",
        "MRG|OLD1^^^GHH&2.16.840.1.113883.19&ISO^MR",
      ],
      { bundle: "transaction" },
    );
    const [survivor, merged] = merge.of("Patient");
    expect(merged?.id).toBe(earlier?.id);
    expect(survivor?.link).toEqual([{ other: { reference: `urn:uuid:${merged?.id}` }, type: "replaces" }]);
    expect(merged?.link).toEqual([{ other: { reference: `urn:uuid:${survivor?.id}` }, type: "replaced-by" }]);
  });

  it("keeps the message's id for the second of two results with the same identifiers, said so", async () => {
    const m = await mapMessage([...ORU.slice(0, 6), (ORU[5] as string).replace("OBX|1|", "OBX|2|")]);
    const [a, b] = m.of("Observation");
    expect(a?.id).not.toBe(b?.id);
    expect(issueLines(m.issues)).toEqual([
      [
        "duplicate_identity",
        "warning",
        "Observation has the business identifiers of the one made of t.hl7#1/6 OBX; it keeps the id of its own segment",
      ],
    ]);
    const report = m.of("DiagnosticReport")[0] as { result: { reference: string }[] };
    expect(report.result).toEqual([{ reference: `urn:uuid:${a?.id}` }, { reference: `urn:uuid:${b?.id}` }]);
  });

  it("leaves no reference to a result left out for a missing code", async () => {
    const m = await mapMessage([...ORU.slice(0, 6), "OBX|2|NM|||120|mg/dL^^UCUM|||||F"]);
    expect(m.of("Observation")).toHaveLength(1);
    expect((m.of("DiagnosticReport")[0] as { result: unknown[] }).result).toEqual([
      { reference: `urn:uuid:${m.of("Observation")[0]?.id}` },
    ]);
  });

  it("over the 22 samples: one Patient per patient, one Encounter per visit, no Type/id twice in a Bundle", async () => {
    const dir = join(FIXTURES_DIR, "hl7v2", "samples");
    const crossmap = await hl7v2Crossmap();
    const bundles: TargetRecord[] = [];
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".hl7")))
      for (const r of convertText(readFileSync(join(dir, f), "utf8"), crossmap, {
        file: f,
        bundle: "transaction",
      }))
        if (r.ok) bundles.push(r.bundle);
    expect(bundles.length).toBe(22);
    // A server refuses a transaction that writes one Type/id twice (Medplum does): duplicates are merged.
    for (const b of bundles) {
      const urls = entries(b).map((e) => e.request?.url);
      expect(new Set(urls).size, String(b.id)).toBe(urls.length);
    }
    const all = bundles.flatMap(entries).map((e) => e.resource);
    const ids = (type: string) => new Set(all.filter((r) => r.resourceType === type).map((r) => r.id));
    // PATID1234 (with its assigning authority) is in 15 of the messages: one Patient; seven patients in all.
    expect(ids("Patient").size).toBe(7);
    const holding = new Map<string, Set<unknown>>();
    for (const r of all.filter((x) => x.resourceType === "Encounter"))
      for (const i of (r.identifier ?? []) as { value: string }[])
        holding.set(i.value, (holding.get(i.value) ?? new Set()).add(r.id));
    // PV1-19 visit numbers (and 50, the PV1-50 alternate visit id that goes with 40007716).
    expect(new Map([...holding].map(([v, s]) => [v, s.size]))).toEqual(
      new Map([
        ["40007716", 1],
        ["50", 1],
        ["0123456789", 1],
        ["1234", 1],
        ["10000001", 1],
        ["5001", 1],
      ]),
    );
    expect(ids("Encounter").size).toBe(6);
  });
});
