// hl7v2_field renderers for the HL7 v2 types that carry or point at a document: ED (encapsulated data) and
// RP (reference pointer), as a FHIR Attachment (IG ED[Attachment], RP[Attachment]). Attachment.data is
// base64Binary and Attachment.url a url, so what the sender wrote is converted or checked, never copied blind.
import { at, type Components, isAbsoluteUri, nonEmpty } from "./hl7v2-composites.js";
import { fail, type Unmappable } from "./types.js";

const BASE64 = /^[A-Za-z0-9+/]*$/;
const HEX = /^[0-9A-Fa-f]*$/;

/** A sender's base64 as canonical base64 (line breaks dropped, padding restored), or undefined if it is none. */
export function canonicalBase64(text: string): string | undefined {
  const s = text.replace(/\s+/g, "");
  const body = s.replace(/={1,2}$/, "");
  // A final group of one character is no byte; padding may only complete the last group of four.
  if (!BASE64.test(body) || body.length % 4 === 1) return undefined;
  if (s.length !== body.length && s.length % 4 !== 0) return undefined;
  return body + "=".repeat((4 - (body.length % 4)) % 4);
}

/**
 * ED-5 (data) as base64, by ED-4 (encoding, HL7 table 0299): `Base64` is checked and made canonical, `Hex`
 * decoded, `A` (no encoding: the text itself) encoded as UTF-8. Data that does not fit its encoding, or an
 * encoding the table does not have, is left out with an issue.
 */
export function edData(c: Components): string | Unmappable | undefined {
  const data = (c[4] ?? []).join("&");
  if (data.trim() === "") return undefined;
  const encoding = at(c, 4);
  switch (encoding.toUpperCase()) {
    case "BASE64": {
      const b64 = canonicalBase64(data);
      return (
        b64 ?? fail("invalid_value", "ED-5 is not valid base64 (ED-4 says Base64); the data was not written")
      );
    }
    case "HEX": {
      const hex = data.replace(/\s+/g, "");
      if (!HEX.test(hex) || hex.length % 2 !== 0)
        return fail(
          "invalid_value",
          "ED-5 is not valid hexadecimal (ED-4 says Hex); the data was not written",
        );
      return Buffer.from(hex, "hex").toString("base64");
    }
    case "A":
      return Buffer.from(data, "utf8").toString("base64");
    default:
      return fail(
        "invalid_value",
        encoding === ""
          ? "ED-4 (encoding) is not valued, so ED-5 cannot be read as data; the data was not written"
          : `ED-4 encoding "${encoding}" is not A, Hex or Base64 (HL7 table 0299); the data was not written`,
      );
  }
}

/** ED: source application ^ type of data ^ data subtype ^ encoding ^ data -> Attachment (contentType, data). */
export function edAttachment(c: Components): Record<string, unknown> | Unmappable | undefined {
  const data = edData(c);
  if (data !== undefined && typeof data !== "string") return data;
  return nonEmpty({ contentType: at(c, 3) || undefined, data });
}

/** RP: pointer ^ application id ^ type of data ^ subtype -> Attachment (url, contentType). */
export function rpAttachment(c: Components): Record<string, unknown> | Unmappable | undefined {
  const pointer = at(c, 1);
  if (pointer && !isAbsoluteUri(pointer)) {
    return fail(
      "invalid_value",
      `RP-1 "${pointer}" is not a URL (an absolute URI without spaces); not written`,
    );
  }
  return nonEmpty({ contentType: at(c, 3) || undefined, url: pointer || undefined });
}
