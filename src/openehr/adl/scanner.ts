// A character cursor over ADL 1.4 text shared by the ODIN and cADL parsers: skips blanks and `--` comments,
// reads the lexical forms both use (strings, code terms, intervals, numbers) and fails with a line number.

export class AdlSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
    this.name = "AdlSyntaxError";
  }
}

export class Scanner {
  pos = 0;

  constructor(
    readonly text: string,
    /** The 1-based line of text[0] in the file, for messages. */
    readonly firstLine = 1,
  ) {}

  get line(): number {
    let n = this.firstLine;
    for (let i = 0; i < this.pos && i < this.text.length; i++) if (this.text.charCodeAt(i) === 10) n++;
    return n;
  }

  fail(message: string): never {
    throw new AdlSyntaxError(message, this.line);
  }

  /** Skips white space and comments; true when text remains. */
  skip(): boolean {
    const t = this.text;
    for (;;) {
      while (this.pos < t.length && /\s/.test(t[this.pos] as string)) this.pos++;
      if (t.startsWith("--", this.pos)) {
        const nl = t.indexOf("\n", this.pos);
        this.pos = nl < 0 ? t.length : nl + 1;
        continue;
      }
      return this.pos < t.length;
    }
  }

  peek(): string {
    this.skip();
    return this.text[this.pos] ?? "";
  }

  startsWith(s: string): boolean {
    this.skip();
    return this.text.startsWith(s, this.pos);
  }

  /** Consumes `s` if it comes next (after blanks). */
  accept(s: string): boolean {
    if (!this.startsWith(s)) return false;
    this.pos += s.length;
    return true;
  }

  expect(s: string): void {
    if (!this.accept(s)) this.fail(`expected ${JSON.stringify(s)}, found ${JSON.stringify(this.around())}`);
  }

  /** The next keyword (letters, digits, `_`) if it is `word`; consumed. */
  acceptWord(word: string): boolean {
    this.skip();
    const t = this.text;
    if (!t.startsWith(word, this.pos)) return false;
    const after = t[this.pos + word.length] ?? "";
    if (/[\w]/.test(after)) return false;
    this.pos += word.length;
    return true;
  }

  identifier(): string {
    this.skip();
    const m = /^[A-Za-z_][\w]*/.exec(this.text.slice(this.pos, this.pos + 200));
    if (!m) this.fail(`expected a name, found ${JSON.stringify(this.around())}`);
    this.pos += m[0].length;
    return m[0];
  }

  /** An RM type name, generics included: `DV_INTERVAL<DV_DATE_TIME>`. */
  typeName(): string {
    let name = this.identifier();
    if (this.text[this.pos] === "<") {
      const end = this.text.indexOf(">", this.pos);
      if (end < 0) this.fail("unclosed generic type");
      name += this.text.slice(this.pos, end + 1).replace(/\s+/g, "");
      this.pos = end + 1;
    }
    return name;
  }

  /** A double-quoted string with `\"` and `\\` escapes. */
  string(): string {
    this.expect('"');
    let out = "";
    const t = this.text;
    while (this.pos < t.length) {
      const c = t[this.pos++] as string;
      if (c === '"') return out;
      if (c === "\\" && this.pos < t.length) {
        const n = t[this.pos++] as string;
        out += n === "n" ? "\n" : n === "t" ? "\t" : n;
      } else out += c;
    }
    return this.fail("unclosed string");
  }

  /** A `/regex/` as written between the slashes. */
  regex(): string {
    this.expect("/");
    const t = this.text;
    const start = this.pos;
    while (this.pos < t.length && t[this.pos] !== "/") {
      if (t[this.pos] === "\\") this.pos++;
      this.pos++;
    }
    if (this.pos >= t.length) this.fail("unclosed regular expression");
    const body = t.slice(start, this.pos);
    this.pos++;
    return body;
  }

  /** Raw text up to (not including) the next `stop` character, trimmed. */
  until(stop: string): string {
    this.skip();
    const end = this.text.indexOf(stop, this.pos);
    if (end < 0) this.fail(`expected ${JSON.stringify(stop)}`);
    const s = this.text.slice(this.pos, end).trim();
    this.pos = end;
    return s;
  }

  around(): string {
    return this.text.slice(this.pos, this.pos + 30).split("\n")[0] ?? "";
  }
}

/** A bound of an interval: a number, or a duration / date string. */
export type Bound = number | string;

export interface RawInterval {
  lower?: Bound;
  upper?: Bound;
  lowerIncluded: boolean;
  upperIncluded: boolean;
}

const bound = (s: string): Bound => {
  const t = s.trim();
  return /^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(t) ? Number(t) : t;
};

/** Parses the inside of `|...|`: `a..b`, `a..<b`, `>a..b`, `>=a`, `<=b`, `<b`, `>a`, `a`, `*..b`. */
export function parseIntervalBody(body: string): RawInterval {
  const s = body.trim();
  const range = s.split("..");
  if (range.length === 2) {
    const [lo, hi] = range as [string, string];
    const out: RawInterval = { lowerIncluded: true, upperIncluded: true };
    let l = lo.trim();
    let h = hi.trim();
    if (l.startsWith(">")) {
      out.lowerIncluded = false;
      l = l.slice(1);
    }
    if (h.startsWith("<")) {
      out.upperIncluded = false;
      h = h.slice(1);
    }
    if (l !== "*") out.lower = bound(l);
    else out.lowerIncluded = false;
    if (h !== "*") out.upper = bound(h);
    else out.upperIncluded = false;
    return out;
  }
  const m = /^(>=|<=|>|<)?(.*)$/.exec(s) as RegExpExecArray;
  const op = m[1];
  const v = bound(m[2] as string);
  if (op === ">=") return { lower: v, lowerIncluded: true, upperIncluded: false };
  if (op === ">") return { lower: v, lowerIncluded: false, upperIncluded: false };
  if (op === "<=") return { upper: v, lowerIncluded: false, upperIncluded: true };
  if (op === "<") return { upper: v, lowerIncluded: false, upperIncluded: false };
  return { lower: v, upper: v, lowerIncluded: true, upperIncluded: true };
}
