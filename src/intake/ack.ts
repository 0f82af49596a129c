// Acknowledgments built from the message they answer: MSH with sender and receiver swapped, the trigger
// event, processing id and version of the message; MSA with the code and MSH-10; ERR naming why, when refused.
import type { Delimiters } from "../pipeline/hl7v2/delimiters.js";
import { DEFAULT_DELIMITERS } from "../pipeline/hl7v2/delimiters.js";
import type { Header } from "./header.js";
import type { Refusal } from "./verdict.js";

export type AckCode = "AA" | "AE" | "AR" | "CA" | "CE" | "CR";

/** HL7 table 0357 names of the codes the listener writes. */
const ERROR_NAMES: Record<Refusal["code"], string> = {
  "100": "Segment sequence error",
  "101": "Required field missing",
  "102": "Data type error",
  "103": "Table value not found",
  "203": "Unsupported version id",
  "207": "Application internal error",
};

/** What an answer to a frame that has no readable MSH says about itself. */
const DEFAULT_VERSION = "2.5.1";

/** `YYYYMMDDHHMMSS.SSS+0000` (UTC). */
export function hl7Time(date: Date): string {
  const iso = date.toISOString(); // 2024-05-01T12:34:56.789Z
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 23)}+0000`;
}

/** Text made safe for one field: delimiters escaped, line breaks as spaces. */
export function escapeText(text: string, d: Delimiters): string {
  let out = "";
  for (const c of text.replace(/\r\n|\r|\n/g, " ")) {
    if (c === d.escape) out += `${d.escape}E${d.escape}`;
    else if (c === d.field) out += `${d.escape}F${d.escape}`;
    else if (c === d.component) out += `${d.escape}S${d.escape}`;
    else if (c === d.repetition) out += `${d.escape}R${d.escape}`;
    else if (c === d.subcomponent) out += `${d.escape}T${d.escape}`;
    else if (d.truncation !== undefined && c === d.truncation) out += `${d.escape}P${d.escape}`;
    else out += c;
  }
  return out;
}

/** `2.3.1` -> 2.3: enough to tell the ERR layouts apart. */
function versionNumber(v: string): number {
  const m = /^(\d+)\.(\d+)/.exec(v);
  return m ? Number(m[1]) + Number(m[2]) / 10 : 2.5;
}

export interface AckOptions {
  /** MSH-10 of the acknowledgment itself. */
  controlId: string;
  time: Date;
  /** Why the message is refused (AR, AE, CR, CE), or what went wrong in its conversion (application AE). */
  errors?: Refusal[];
}

/**
 * The acknowledgment of `header`'s message (or of a frame without a readable MSH), in the message's own
 * delimiters so that its MSH fields are copied as written, with MSH-18 `8859/1` when it is in Latin-1.
 * Versions before 2.5 read the error from MSA-3 and ERR-1; 2.5 and later from ERR-2, ERR-3, ERR-4 and
 * ERR-7 (MSA-3 and ERR-1 are deprecated there).
 */
export function buildAck(header: Header | undefined, code: AckCode, options: AckOptions): string {
  const d = header?.delimiters ?? DEFAULT_DELIMITERS;
  const f = header?.fields ?? [];
  const enc = f[2] ?? `${d.component}${d.repetition}${d.escape}${d.subcomponent}`;
  const version = header?.fields[12] ?? DEFAULT_VERSION;
  const old = versionNumber(header?.version ?? DEFAULT_VERSION) < 2.5;
  const event = header?.event ?? "";
  const type = event === "" ? "ACK" : `ACK${d.component}${event}${d.component}ACK`;
  const msh = [
    "MSH",
    enc,
    f[5] ?? "",
    f[6] ?? "",
    f[3] ?? "",
    f[4] ?? "",
    hl7Time(options.time),
    "",
    type,
    escapeText(options.controlId, d),
    f[11] || "P",
    version,
  ];
  // MSH-18 names the character set when it is not the default: an answer in Latin-1 (to a message in
  // 8859/1, however its MSH-18 spelt it) says so in HL7 table 0211's code; one in UTF-8 leaves it empty.
  if (header?.charset === "latin1") msh.push("", "", "", "", "", "8859/1");
  const errors = options.errors ?? [];
  const first = errors[0];
  const msa = ["MSA", code, header?.controlId ?? ""];
  if (old && first) msa.push(escapeText(first.text, d));
  const segments = [msh.join(d.field), msa.join(d.field)];
  for (const e of errors) {
    const name = `${e.code}${d.component}${ERROR_NAMES[e.code]}${d.component}HL70357`;
    if (old) {
      // ELD: segment^sequence^field^code (a CE, so its parts are subcomponents here).
      const [segment = "", sequence = "", field = ""] = (e.location ?? "").split("^");
      const codeCe = `${e.code}${d.subcomponent}${escapeText(ERROR_NAMES[e.code], d)}${d.subcomponent}HL70357`;
      segments.push(["ERR", [segment, sequence, field, codeCe].join(d.component)].join(d.field));
    } else {
      const location = (e.location ?? "")
        .split("^")
        .map((x) => escapeText(x, d))
        .join(d.component);
      segments.push(["ERR", "", location, name, "E", "", "", escapeText(e.text, d)].join(d.field));
    }
  }
  return `${segments.join("\r")}\r`;
}

/** The bytes of an acknowledgment in the message's character set, framed for MLLP. */
export function frameAck(text: string, charset: "utf-8" | "latin1" = "utf-8"): Buffer {
  const body = Buffer.from(text, charset);
  const out = Buffer.allocUnsafe(body.length + 3);
  out[0] = 0x0b;
  body.copy(out, 1);
  out[body.length + 1] = 0x1c;
  out[body.length + 2] = 0x0d;
  return out;
}
