import { describe, expect, it } from "vitest";
import { bundleBody, messageBundle, resourceEntry } from "../../../src/sinks/fhir-server/bundles.js";

describe("resourceEntry", () => {
  it("makes a PUT Type/id entry of a resource with an id, keeping its text as it was", () => {
    const line = '{"resourceType":"Observation","id":"m-1","valueInteger":12345678901234567890}';
    expect(resourceEntry(line)).toEqual({
      entry: `{"resource":${line},"request":{"method":"PUT","url":"Observation/m-1"}}`,
      request: "PUT Observation/m-1",
      type: "Observation",
      url: "Observation/m-1",
      key: "Observation/m-1",
      idless: false,
    });
  });

  it("makes a POST entry of a resource without an id, flagged as not idempotent", () => {
    expect(resourceEntry('{"resourceType":"Patient"}')).toEqual({
      entry: '{"resource":{"resourceType":"Patient"},"request":{"method":"POST","url":"Patient"}}',
      request: "POST Patient",
      type: "Patient",
      url: "Patient",
      key: undefined,
      idless: true,
    });
  });

  it("reads the top-level id, not one of a contained resource or a nested object before it", () => {
    const line =
      '{"resourceType":"DeviceUseStatement","contained":[{"resourceType":"Device","id":"device"}],"x":{"id":"no"},"id":"7"}';
    expect(resourceEntry(line)).toMatchObject({
      request: "PUT DeviceUseStatement/7",
      key: "DeviceUseStatement/7",
    });
    // Arrays and numbers at the top level, and strings holding braces, do not confuse it.
    expect(
      resourceEntry('{"a":[1,{"id":"n"}],"b":"}{][","resourceType":"Patient","n":12.5,"ok":true,"id":"p"}'),
    ).toMatchObject({ request: "PUT Patient/p" });
    // Escaped quotes: parsed whole instead.
    expect(resourceEntry('{"text":"say \\"hi\\"","resourceType":"Patient","id":"q"}')).toMatchObject({
      request: "PUT Patient/q",
    });
    expect(resourceEntry('{"resourceType":"Patient","id":7}')).toMatchObject({ request: "POST Patient" });
  });

  it("says what is wrong with a line that is not a resource", () => {
    expect(resourceEntry('{"person_id":1}')).toEqual({
      problem: "not a FHIR resource: it has no resourceType",
    });
    expect(resourceEntry("[1]")).toEqual({ problem: "not a FHIR resource: it has no resourceType" });
    expect(resourceEntry("{")).toMatchObject({ problem: expect.stringMatching(/^not JSON: /) });
  });
});

const transaction = {
  resourceType: "Bundle",
  id: "msg-1",
  type: "transaction",
  entry: [
    {
      fullUrl: "urn:uuid:00000000-0000-0000-0000-000000000001",
      resource: { resourceType: "Patient", id: "p1" },
      request: { method: "PUT", url: "Patient/p1" },
    },
    {
      fullUrl: "urn:uuid:00000000-0000-0000-0000-000000000002",
      resource: {
        resourceType: "Encounter",
        id: "e1",
        subject: { reference: "urn:uuid:00000000-0000-0000-0000-000000000001" },
        participant: [{ individual: { reference: "Practitioner/x", display: "Dr X" } }],
      },
      request: { method: "PUT", url: "Encounter/e1" },
    },
  ],
};

describe("messageBundle", () => {
  it("keeps a transaction as it is, one origin per entry, keyed by what it writes", () => {
    const { outgoing, unresolved } = messageBundle(transaction, "transaction", "m1");
    expect(unresolved).toEqual([]);
    expect(outgoing).toEqual({
      type: "transaction",
      id: "msg-1",
      entries: transaction.entry.map((e) => JSON.stringify(e)),
      requests: ["PUT Patient/p1", "PUT Encounter/e1"],
      origins: ["m1", "m1"],
      keys: ["Patient/p1", "Encounter/e1"],
    });
    expect(JSON.parse(bundleBody(outgoing).toString("utf8"))).toEqual({ ...transaction });
  });

  it("writes the Bundle's bytes exactly, multi-byte characters included", () => {
    const entries = [
      '{"resource":{"resourceType":"Patient","id":"z","name":[{"text":"Zoë 日本 😀"}]}}',
      "{}",
    ];
    const out = { type: "batch" as const, entries, requests: [], origins: [], keys: [] };
    expect(bundleBody(out).toString("utf8")).toBe(
      `{"resourceType":"Bundle","type":"batch","entry":[${entries.join(",")}]}`,
    );
    expect(bundleBody({ ...out, id: 'm "1"', entries: [] }).toString("utf8")).toBe(
      '{"resourceType":"Bundle","id":"m \\"1\\"","type":"batch","entry":[]}',
    );
  });

  it("as a batch, points urn:uuid references at the Type/id the entry is PUT to", () => {
    const { outgoing, unresolved } = messageBundle(transaction, "batch", "m1");
    expect(unresolved).toEqual([]);
    expect(outgoing.type).toBe("batch");
    const encounter = JSON.parse(outgoing.entries[1] as string);
    expect(encounter.resource.subject).toEqual({ reference: "Patient/p1" });
    expect(encounter.resource.participant).toEqual([
      { individual: { reference: "Practitioner/x", display: "Dr X" } },
    ]);
    // The message's own Bundle is not changed.
    expect(transaction.entry[1]?.resource.subject).toEqual({
      reference: "urn:uuid:00000000-0000-0000-0000-000000000001",
    });
  });

  it("as a batch, names references to entries only the server could name (POST, conditional PUT)", () => {
    const posted = {
      ...transaction,
      entry: [
        { ...transaction.entry[0], request: { method: "POST", url: "Patient" } },
        transaction.entry[1],
        {
          fullUrl: "urn:uuid:00000000-0000-0000-0000-000000000003",
          resource: {
            resourceType: "Observation",
            subject: { reference: "urn:uuid:00000000-0000-0000-0000-000000000001" },
          },
          request: { method: "PUT", url: "Observation?identifier=urn:x|1" },
        },
      ],
    };
    const { outgoing, unresolved } = messageBundle(posted, "batch", "m1");
    expect(unresolved).toEqual([
      "urn:uuid:00000000-0000-0000-0000-000000000001",
      "urn:uuid:00000000-0000-0000-0000-000000000001",
    ]);
    expect(outgoing.keys).toEqual(["Encounter/e1", "Observation?identifier=urn:x|1"]);
  });
});
