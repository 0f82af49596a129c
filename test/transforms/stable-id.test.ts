import { describe, expect, it } from "vitest";
import { idPart, stableInteger } from "../../src/transforms/stable-id.js";
import { transformer } from "../helpers.js";

const UUID = "4e8ed886-fd5f-40bb-8feb-f339b04d853a";

describe("integer_id", () => {
  const t = transformer("integer_id");
  it("gives an id and every reference form of it the same integer", () => {
    const id = t(UUID).out;
    expect(typeof id).toBe("bigint");
    expect(t(`urn:uuid:${UUID}`).out).toBe(id);
    expect(t(`Patient/${UUID}`).out).toBe(id);
    expect(t(`http://example.org/fhir/Patient/${UUID}/_history/3`).out).toBe(id);
  });
  it("writes nothing for a contained or a conditional reference, which names no id in the data, and says so in a warning", () => {
    expect(t(" #pat")).toEqual({
      out: undefined,
      issues: [
        expect.objectContaining({
          code: "unresolved_reference",
          severity: "warning",
          message:
            '"#pat" refers to a contained resource, which has no id of its own; the link is not written',
        }),
      ],
    });
    // As Synthea's transaction Bundles write organisations and practitioners.
    const conditional = "Organization?identifier=https://github.com/synthetichealth/synthea|ef58ea08";
    expect(t(conditional).issues.map((i) => [i.severity, i.message])).toEqual([
      [
        "warning",
        `"${conditional}" is a conditional reference (a FHIR server resolves it by search); it names no id in the data, so the link is not written`,
      ],
    ]);
    // A query on an absolute reference is no condition: the id before it is read.
    expect(t("http://example.org/fhir/Patient/7?_format=json")).toEqual({ out: 7, issues: [] });
  });
  it("is a pinned function of the id (SHA-256, first 8 bytes, mod 2^bits-1, plus 1), 63 bits by default", () => {
    expect(t(UUID).out).toBe(stableInteger(UUID));
    expect(stableInteger("abc")).toBe(4213142463398924268n);
    expect(stableInteger("abc", 31)).toBe(66190701);
  });
  it("keeps decimal ids that fit, so OMOP ids survive a round trip through FHIR", () => {
    expect(t("12345").out).toBe(12345);
    expect(t("Patient/7").out).toBe(7);
    expect(t(42).out).toBe(42);
    expect(t("1741351032930224901").out).toBe(1741351032930224901n);
    // beyond 2^bits-1 or not canonical (leading zero): hashed into range instead
    const big = transformer("integer_id", { bits: 31 })("3000000000").out as number;
    expect(big).not.toBe(3000000000);
    expect(big).toBeGreaterThan(0);
    expect(big).toBeLessThan(2 ** 31);
    expect(t("007").out).not.toBe(7);
  });
  it("stays within 1 .. 2^bits-1 for the configured width", () => {
    const t16 = transformer("integer_id", { bits: 16 });
    for (let i = 0; i < 200; i++) {
      const n = t16(`id-${i}`).out as number;
      expect(n).toBeGreaterThanOrEqual(1);
      expect(n).toBeLessThanOrEqual(65535);
    }
  });
  it("reports a value with no id part", () => {
    expect(t("Patient/").issues[0]?.code).toBe("invalid_value");
    expect(t({ reference: "x" }).issues[0]?.code).toBe("invalid_value");
  });
  it("finds the id part of ids and references", () => {
    expect(idPart("urn:uuid:abc")).toBe("abc");
    expect(idPart("Encounter/e1")).toBe("e1");
    expect(idPart("plain")).toBe("plain");
  });
});

describe("integer_id: negative ids and table prefixes", () => {
  it("keeps negative decimal ids exactly, to the 64-bit limit", () => {
    const t = transformer("integer_id");
    expect(t("-5").out).toBe(-5);
    expect(t("Patient/-9223372036854775807").out).toBe(-9223372036854775807n);
  });
  it("reads a decimal id after a configured prefix, and hashes one with another prefix", () => {
    const t = transformer("integer_id", { prefix: ["measurement-", "observation-"] });
    expect(t("measurement-12").out).toBe(12);
    expect(t("observation--3").out).toBe(-3);
    expect(t("death-7").out).toBe(transformer("integer_id")("death-7").out);
    expect(t("death-7").out).not.toBe(7);
  });
});
