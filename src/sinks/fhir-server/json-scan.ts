// A JSON text walked without being parsed (bundle-text.ts): where each value ends, every character checked as
// JSON.parse checks it, so that a slice of a text it accepts is JSON that any parser reads as JSON.parse does.

/**
 * One text's scan (after a SyntaxError, a new one). Positions are indexes into `text`; each method throws a SyntaxError where the text is not
 * JSON. Strings are found with indexOf, not character by character (they are most of a FHIR resource's
 * text): the next backslash and the next control character are looked for once each and remembered, since
 * the scan only moves forward, and a text without either (JSON.stringify's own) costs one search for each.
 */
export class JsonScan {
  /** Where the next backslash is, at or past where it was last looked for (the length when none). */
  private slash = -1;
  /** Where the next control character (U+0000 to U+001F) is, likewise. */
  private control = -1;
  /** The closing character of each object and array `valueEnd` is in. */
  private readonly open: number[] = [];

  constructor(readonly text: string) {}

  /** Past any whitespace at `at`: JSON's own, space, tab, CR and LF. */
  ws(at: number): number {
    const t = this.text;
    let i = at;
    for (;;) {
      const c = t.charCodeAt(i);
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return i;
      i++;
    }
  }

  /** Calls `on` with each member's key and where its value starts; `on` returns where the value ends. */
  members(at: number, on: (key: string, value: number) => number): number {
    const t = this.text;
    if (t.charCodeAt(at) !== 123 /* { */) throw new SyntaxError("expected an object");
    let i = this.ws(at + 1);
    if (t.charCodeAt(i) === 125 /* } */) return i + 1;
    for (;;) {
      const end = this.stringEnd(i);
      // A key with an escape is decoded (none of the wanted ones has one, but it must not be mistaken for one).
      const raw = t.slice(i + 1, end - 1);
      const key = raw.includes("\\") ? (JSON.parse(t.slice(i, end)) as string) : raw;
      i = this.ws(on(key, this.colon(end)));
      const c = t.charCodeAt(i);
      if (c === 125 /* } */) return i + 1;
      if (c !== 44 /* , */) throw new SyntaxError("expected , or }");
      i = this.ws(i + 1);
    }
  }

  /** Where the string starting at `at` (its opening quote) ends, past its closing quote. */
  stringEnd(at: number): number {
    const t = this.text;
    if (t.charCodeAt(at) !== 34 /* " */) throw new SyntaxError("expected a string");
    let i = at + 1;
    for (;;) {
      const q = t.indexOf('"', i);
      if (q < 0) throw new SyntaxError("unterminated string");
      if (this.control < i) this.control = nextControl(t, i);
      if (this.control < q) throw new SyntaxError("a control character in a string");
      if (this.slash < i) {
        const s = t.indexOf("\\", i);
        this.slash = s < 0 ? t.length : s;
      }
      const s = this.slash;
      if (s > q) return q + 1;
      // An escape before the quote (which may be the one it escapes): checked, and the search goes on past it.
      const e = t.charCodeAt(s + 1);
      if (e === 117 /* u */) {
        if (!(hex(t, s + 2) && hex(t, s + 3) && hex(t, s + 4) && hex(t, s + 5)))
          throw new SyntaxError("a bad \\u escape");
        i = s + 6;
      } else if (ESCAPES.has(e)) i = s + 2;
      else throw new SyntaxError("a bad escape");
    }
  }

  /** Where the number starting at `at` ends: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`. */
  numberEnd(at: number): number {
    const t = this.text;
    let i = at;
    if (t.charCodeAt(i) === 45 /* - */) i++;
    if (t.charCodeAt(i) === 48 /* 0 */) i++;
    else i = digits(t, i);
    if (t.charCodeAt(i) === 46 /* . */) i = digits(t, i + 1);
    const e = t.charCodeAt(i);
    if (e === 101 || e === 69 /* e E */) {
      const s = t.charCodeAt(i + 1);
      i = digits(t, s === 43 || s === 45 /* + - */ ? i + 2 : i + 1);
    }
    return i;
  }

  /**
   * Where the value starting at `at` ends. Objects and arrays nest in a stack of their own, not in calls, so
   * that no depth JSON.parse takes overflows the call stack.
   */
  valueEnd(at: number): number {
    const t = this.text;
    const open = this.open;
    const depth = open.length;
    let i = at;
    for (;;) {
      // A value at i.
      const c = t.charCodeAt(i);
      if (c === 34 /* " */) i = this.stringEnd(i);
      else if (c === 123 /* { */) {
        i = this.ws(i + 1);
        if (t.charCodeAt(i) === 125 /* } */) i++;
        else {
          open.push(125);
          i = this.colon(this.stringEnd(i));
          continue;
        }
      } else if (c === 91 /* [ */) {
        i = this.ws(i + 1);
        if (t.charCodeAt(i) === 93 /* ] */) i++;
        else {
          open.push(93);
          continue;
        }
      } else if (c === 45 || (c >= 48 && c <= 57) /* - 0-9 */) i = this.numberEnd(i);
      else if (t.startsWith("true", i) || t.startsWith("null", i)) i += 4;
      else if (t.startsWith("false", i)) i += 5;
      else throw new SyntaxError("expected a value");
      // Past the value: the next one in its object or array, or their ends.
      for (;;) {
        if (open.length === depth) return i;
        // ws() only where there is whitespace: the pipeline writes none, and the call costs.
        let d = t.charCodeAt(i);
        if (d <= 32) {
          i = this.ws(i);
          d = t.charCodeAt(i);
        }
        const close = open[open.length - 1];
        if (d === 44 /* , */) {
          if (t.charCodeAt(++i) <= 32) i = this.ws(i);
          if (close === 125) i = this.colon(this.stringEnd(i));
          break;
        }
        if (d !== close) throw new SyntaxError("expected , or the end of an object or array");
        open.pop();
        i++;
      }
    }
  }

  /** Past the colon after a key that ends at `at`, and the whitespace around it: where its value starts. */
  private colon(at: number): number {
    const t = this.text;
    let i = at;
    if (t.charCodeAt(i) !== 58 /* : */) {
      i = this.ws(i);
      if (t.charCodeAt(i) !== 58) throw new SyntaxError("expected :");
    }
    return t.charCodeAt(++i) <= 32 ? this.ws(i) : i;
  }
}

/** What may follow a backslash besides `u`: " \ / b f n r t. */
const ESCAPES = new Set([34, 92, 47, 98, 102, 110, 114, 116]);

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is its purpose.
const CONTROL = /[\u0000-\u001f]/g;

/** Where the first control character at or past `at` is, or the text's length. */
function nextControl(text: string, at: number): number {
  CONTROL.lastIndex = at;
  const m = CONTROL.exec(text);
  return m === null ? text.length : m.index;
}

function hex(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** Past one or more digits at `at`. */
function digits(text: string, at: number): number {
  let i = at;
  for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i));
  if (i === at) throw new SyntaxError("expected a digit");
  return i;
}
