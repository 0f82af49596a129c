import { describe, expect, it } from "vitest";
import { canonicalBase64 } from "../../src/transforms/hl7v2-attachment.js";
import { transformer } from "../helpers.js";

const ed = transformer("hl7v2_field", { format: "ED" });
const rp = transformer("hl7v2_field", { format: "RP" });
const issues = (r: { issues: readonly { code: string; severity: string; message: string }[] }) =>
  r.issues.map((i) => [i.code, i.severity, i.message]);

describe("hl7v2_field ED (IG ED[Attachment]): ED-5 becomes valid base64 by ED-4, or nothing", () => {
  it("Base64 is made canonical: line breaks dropped, missing padding restored", () => {
    expect(ed("^AP^PDF^Base64^JVBERi0xLjQK\nJUVPRgo").out).toEqual({
      contentType: "PDF",
      data: "JVBERi0xLjQKJUVPRgo=",
    });
    expect(ed("^AP^PDF^BASE64^QUJD").out).toEqual({ contentType: "PDF", data: "QUJD" });
    expect(canonicalBase64("QUI")).toBe("QUI=");
    expect(canonicalBase64("QQ==")).toBe("QQ==");
  });
  it("Hex is decoded and A (no encoding) is the text itself, both written as base64", () => {
    expect(ed("^AP^octet-stream^Hex^48656C6C6F").out).toEqual({
      contentType: "octet-stream",
      data: "SGVsbG8=",
    });
    expect(ed("^TEXT^plain^A^Grüße").out).toEqual({ contentType: "plain", data: "R3LDvMOfZQ==" });
  });
  it("data that does not fit its encoding, or an unknown or missing encoding, is left out with an error", () => {
    for (const [v, message] of [
      [
        "^AP^PDF^Base64^not base64!!",
        "ED-5 is not valid base64 (ED-4 says Base64); the data was not written",
      ],
      ["^AP^PDF^Base64^QUJDR", "ED-5 is not valid base64 (ED-4 says Base64); the data was not written"],
      ["^AP^PDF^Base64^QU=JD", "ED-5 is not valid base64 (ED-4 says Base64); the data was not written"],
      ["^AP^PDF^Hex^4865F", "ED-5 is not valid hexadecimal (ED-4 says Hex); the data was not written"],
      ["^AP^PDF^Hex^ZZ", "ED-5 is not valid hexadecimal (ED-4 says Hex); the data was not written"],
      [
        "^AP^PDF^^QUJD",
        "ED-4 (encoding) is not valued, so ED-5 cannot be read as data; the data was not written",
      ],
      [
        "^AP^PDF^UU^QUJD",
        'ED-4 encoding "UU" is not A, Hex or Base64 (HL7 table 0299); the data was not written',
      ],
    ] as const) {
      const r = ed(v);
      expect(r.out, v).toBeUndefined();
      expect(issues(r), v).toEqual([["invalid_value", "error", message]]);
    }
  });
  it("an ED without data is its content type alone; no data at all is nothing", () => {
    expect(ed("^AP^PDF^Base64^").out).toEqual({ contentType: "PDF" });
    expect(ed("^^^^").out).toBeUndefined();
  });
});

describe("hl7v2_field RP (IG RP[Attachment]): RP-1 is a url only when it is an absolute URI", () => {
  it("writes the pointer and the type of data", () => {
    expect(rp("http://x.org/a.pdf^APP^AP^PDF").out).toEqual({ contentType: "AP", url: "http://x.org/a.pdf" });
  });
  it("a pointer with spaces or without a scheme is no url: left out with an error", () => {
    for (const p of ["my file.pdf", "a.pdf"]) {
      const r = rp(`${p}^APP^AP^PDF`);
      expect(r.out).toBeUndefined();
      expect(issues(r)).toEqual([
        ["invalid_value", "error", `RP-1 "${p}" is not a URL (an absolute URI without spaces); not written`],
      ]);
    }
  });
});
