import { describe, expect, it } from "vitest";
import { entryRecord, idFromFullUrl } from "../../src/pipeline/bundle-entry.js";

describe("a Bundle entry as the record to map", () => {
  it("gives a resource without an id the one its urn:uuid or RESTful fullUrl names", () => {
    const uuid = "11111111-2222-3333-4444-555555555555";
    expect(entryRecord({ fullUrl: `urn:uuid:${uuid}`, resource: { resourceType: "Patient" } })).toEqual({
      resource: { resourceType: "Patient", id: uuid },
    });
    expect(
      entryRecord({
        fullUrl: "https://ehr.example/fhir/Patient/p-7/_history/2",
        resource: { resourceType: "Patient" },
      }),
    ).toEqual({ resource: { resourceType: "Patient", id: "p-7" } });
  });

  it("reads a urn:oid fullUrl and either urn in any case, as references to them are read; a PUT by its url", () => {
    expect(idFromFullUrl("urn:oid:1.2.840.10008.1", "Patient")).toBe("1.2.840.10008.1");
    expect(idFromFullUrl("URN:UUID:11111111-2222-3333-4444-555555555555", "Patient")).toBe(
      "11111111-2222-3333-4444-555555555555",
    );
    expect(
      entryRecord({
        fullUrl: "urn:uuid:11111111-2222-3333-4444-555555555555",
        resource: { resourceType: "Patient" },
        request: { method: "PUT", url: "Patient/123" },
      }),
    ).toEqual({ resource: { resourceType: "Patient", id: "123" } });
  });

  it("keeps an id the resource has, and gives none from a fullUrl of another type or form", () => {
    expect(
      entryRecord({
        fullUrl: "urn:uuid:11111111-2222-3333-4444-555555555555",
        resource: { resourceType: "Patient", id: "a" },
      }),
    ).toEqual({ resource: { resourceType: "Patient", id: "a" } });
    expect(idFromFullUrl("https://ehr.example/fhir/Observation/o1", "Patient")).toBeUndefined();
    expect(idFromFullUrl("urn:uuid:not-a-uuid", "Patient")).toBeUndefined();
    expect(idFromFullUrl(undefined, "Patient")).toBeUndefined();
  });

  it("names a request without a resource (DELETE, GET) instead of failing it; anything else is a problem", () => {
    expect(entryRecord({ request: { method: "DELETE", url: "Patient/old" } })).toEqual({
      method: "DELETE",
      request: "a DELETE Patient/old request without a resource: nothing to map, left out",
    });
    expect(entryRecord({ fullUrl: "urn:uuid:x" })).toEqual({ problem: "entry has no resource object" });
    expect(entryRecord({ resource: "Patient", request: { method: "POST" } })).toEqual({
      problem: "entry has no resource object",
    });
    expect(entryRecord(null)).toEqual({ problem: "entry has no resource object" });
  });
});
