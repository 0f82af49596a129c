// The delimiters of one ER7 message (from MSH-1 and MSH-2, or FHS/BHS) and the unescaping they imply.

export interface Delimiters {
  field: string;
  component: string;
  repetition: string;
  escape: string;
  subcomponent: string;
  /** HL7 2.7+ truncation character, the optional fifth encoding character (`^~\&#`). */
  truncation?: string;
}

export const DEFAULT_DELIMITERS: Delimiters = {
  field: "|",
  component: "^",
  repetition: "~",
  escape: "\\",
  subcomponent: "&",
};

/**
 * Delimiters from a header segment line (`MSH|^~\&|...`), or a reason why there are none. MSH-2 has 4
 * characters, or 5 with the truncation character; all must differ and none may be a letter or digit, else
 * splitting would cut data at random.
 */
export function readDelimiters(line: string): Delimiters | string {
  const field = line[3];
  if (field === undefined) return "header segment has no field separator (MSH-1)";
  const end = line.indexOf(field, 4);
  const enc = end === -1 ? line.slice(4) : line.slice(4, end);
  if (enc.length < 4 || enc.length > 5) {
    return `encoding characters (MSH-2) "${enc}" must be 4 or 5 characters, e.g. ^~\\&`;
  }
  const all = field + enc;
  if (/[A-Za-z0-9\s]/.test(all) || new Set(all).size !== all.length) {
    return `delimiters "${all}" must be distinct and not letters, digits or spaces`;
  }
  const d: Delimiters = {
    field,
    component: enc[0] as string,
    repetition: enc[1] as string,
    escape: enc[2] as string,
    subcomponent: enc[3] as string,
  };
  if (enc.length === 5) d.truncation = enc[4] as string;
  return d;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** `\Xhh..\`: the bytes as UTF-8 when they are valid UTF-8, else as Latin-1 (the HL7 default repertoire). */
function hexText(hex: string): string | undefined {
  if (hex.length === 0 || hex.length % 2 !== 0 || !/^[0-9A-Fa-f]+$/.test(hex)) return undefined;
  const bytes = Buffer.from(hex, "hex");
  try {
    return utf8.decode(bytes);
  } catch {
    return bytes.toString("latin1");
  }
}

// Formatting commands of FT (.sp .in .ti .sk .ce .fi .nf), highlighting (H, N), character-set switches
// (Cxxyy, Mxxyyzz) and local escapes (Z...) carry no text: they are dropped, not printed as garbage.
const DROPPED = /^(\.(sp|in|ti|sk|ce|fi|nf)[+-]?\d*|H|N|C[0-9A-Fa-f]{4}|M[0-9A-Fa-f]{4,6}|Z.*)$/;

/** Characters FHIR strings may not hold: below U+0020 except tab, LF and CR. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is its purpose.
export const FORBIDDEN_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;
const FORBIDDEN_CONTROL_ALL = new RegExp(FORBIDDEN_CONTROL.source, "g");

/** What went wrong reading an escape sequence; the text is kept readable either way. */
export interface EscapeProblem {
  code: "invalid_escape" | "invalid_character";
  /** The sequence as written, escape characters included. */
  sequence: string;
  message: string;
}

/** `U+0000, U+001B`: the forbidden characters of a text. */
export const codePoints = (s: string): string =>
  [...new Set(s.match(FORBIDDEN_CONTROL_ALL) ?? [])]
    .map((c) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`)
    .join(", ");

/**
 * Compiles the unescaper of a delimiter set: `\F\ \S\ \T\ \R\ \E\ \P\` give the delimiters back, `\.br\` (and
 * `\.sp\`) a line break, `\Xhh\` the bytes. A sequence that is none of these (or has no closing escape
 * character) is kept as written and reported, and reading goes on after it: it never shifts the rest of
 * the text. Characters FHIR strings forbid (`\X00\`) are left out and reported.
 */
export function compileUnescape(d: Delimiters, report?: (p: EscapeProblem) => void): (s: string) => string {
  const e = d.escape;
  const simple: Record<string, string> = {
    F: d.field,
    S: d.component,
    T: d.subcomponent,
    R: d.repetition,
    E: e,
    P: d.truncation ?? "",
    ".br": "\n",
    ".sp": "\n",
  };
  return (s) => {
    let i = s.indexOf(e);
    if (i === -1) return s;
    let out = "";
    let from = 0;
    while (i !== -1) {
      const close = s.indexOf(e, i + 1);
      if (close === -1) {
        report?.({
          code: "invalid_escape",
          sequence: s.slice(i),
          message: `"${s.slice(i)}" has no closing escape character "${e}"; kept as written`,
        });
        break;
      }
      const seq = s.slice(i + 1, close);
      let text: string | undefined = simple[seq];
      if (text === undefined && seq[0] === "X") {
        text = hexText(seq.slice(1));
        if (text !== undefined && FORBIDDEN_CONTROL.test(text)) {
          report?.({
            code: "invalid_character",
            sequence: `${e}${seq}${e}`,
            message: `${e}${seq}${e} stands for ${codePoints(text)}, which FHIR strings may not hold; left out`,
          });
          text = text.replace(FORBIDDEN_CONTROL_ALL, "");
        }
      }
      if (text === undefined && DROPPED.test(seq)) text = "";
      if (text === undefined) {
        // Not an escape sequence: kept whole, escape characters included, and read on after it.
        report?.({
          code: "invalid_escape",
          sequence: `${e}${seq}${e}`,
          message: `"${e}${seq}${e}" is not an HL7 escape sequence; kept as written`,
        });
        text = `${e}${seq}${e}`;
      }
      out += s.slice(from, i) + text;
      from = close + 1;
      i = s.indexOf(e, from);
    }
    return out + s.slice(from);
  };
}
