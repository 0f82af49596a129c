// JSON text <-> values without losing 64-bit integers: JSON.parse/JSON.stringify on the common path,
// a small exact parser and serialiser only for the rare line or record that needs them.
/**
 * Parses one JSON text. Integer literals beyond 2^53 become `bigint` so they keep every digit; everything
 * else is what JSON.parse gives. Throws a SyntaxError on malformed text.
 */
export function parseJson(text: string): unknown {
  const value = JSON.parse(text);
  // Any integer literal beyond 2^53 parses to a double that is not a safe integer, so the native result
  // says whether the slow exact parse is needed; scanning the text for digit runs cost more than this.
  // A key holding a backslash also goes the exact way (only a text with a backslash can have one): V8's
  // JSON.parse in Node 24 and later can read an escaped key as another it has seen, always one with a
  // backslash: after a `"\\"` key, `"\""` and `"\/"` read as `\` (nodejs/node#63785).
  return needsExactParse(value, text.includes("\\")) ? new ExactParser(text).parseDocument() : value;
}

function needsExactParse(value: unknown, keys: boolean): boolean {
  if (typeof value === "number") return Number.isInteger(value) && !Number.isSafeInteger(value);
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (needsExactParse(item, keys)) return true;
    return false;
  }
  for (const key in value) {
    if (keys && key.includes("\\")) return true;
    if (needsExactParse((value as Record<string, unknown>)[key], keys)) return true;
  }
  return false;
}

/**
 * What a JSON.parse failure says, in the same words on every Node version. Node 22 and later append
 * "(line L column C)" counted within the parsed text: for an NDJSON record that is always line 1, beside
 * the file's own line number. So that suffix goes; for a multi-line `text` (a bundle file) the line and
 * column are added back, counted here, so every version names them.
 */
export function jsonSyntaxMessage(err: unknown, text?: string): string {
  const message = (err instanceof Error ? err.message : String(err)).replace(/ \(line \d+ column \d+\)$/, "");
  const at = /at position (\d+)$/.exec(message);
  if (!at || text === undefined || !text.includes("\n")) return message;
  const position = Number(at[1]);
  const before = text.slice(0, position);
  const line = before.split("\n").length;
  const column = position - (before.lastIndexOf("\n") + 1) + 1;
  return `${message} (line ${line} column ${column})`;
}

/** Serialises like JSON.stringify, but writes `bigint` as bare digits instead of throwing. */
export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (err instanceof TypeError && /BigInt/i.test(err.message)) return stringifyExact(value) ?? "null";
    throw err;
  }
}

function stringifyExact(value: unknown): string | undefined {
  switch (typeof value) {
    case "bigint":
      return value.toString();
    case "string":
    case "number":
    case "boolean":
      return JSON.stringify(value);
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  if (value === null) return "null";
  const withToJson = value as { toJSON?: () => unknown };
  if (typeof withToJson.toJSON === "function") return stringifyExact(withToJson.toJSON());
  if (Array.isArray(value)) {
    return `[${value.map((item) => stringifyExact(item) ?? "null").join(",")}]`;
  }
  const parts: string[] = [];
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const text = stringifyExact(item);
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(",")}}`;
}

/** A strict RFC 8259 parser; slower than JSON.parse, used only for texts that may hold big integers. */
class ExactParser {
  private pos = 0;
  constructor(private readonly text: string) {}

  parseDocument(): unknown {
    this.skipSpace();
    const value = this.parseValue();
    this.skipSpace();
    if (this.pos < this.text.length) this.fail("Unexpected non-whitespace character after JSON");
    return value;
  }

  private parseValue(): unknown {
    const c = this.text.charCodeAt(this.pos);
    if (c === 0x7b) return this.parseObject();
    if (c === 0x5b) return this.parseArray();
    if (c === 0x22) return this.parseString();
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.parseNumber();
    if (this.text.startsWith("true", this.pos)) return this.literal(4, true);
    if (this.text.startsWith("false", this.pos)) return this.literal(5, false);
    if (this.text.startsWith("null", this.pos)) return this.literal(4, null);
    return this.fail(
      this.pos < this.text.length ? "Unexpected token in JSON" : "Unexpected end of JSON input",
    );
  }

  private literal<T>(length: number, value: T): T {
    this.pos += length;
    return value;
  }

  private parseObject(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.pos++;
    this.skipSpace();
    if (this.text.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      if (this.text.charCodeAt(this.pos) !== 0x22) this.fail("Expected property name or '}' in JSON");
      const key = this.parseString();
      this.skipSpace();
      if (this.text.charCodeAt(this.pos) !== 0x3a) this.fail("Expected ':' after property name in JSON");
      this.pos++;
      this.skipSpace();
      // defineProperty so that a "__proto__" key is data, as with JSON.parse.
      Object.defineProperty(out, key, {
        value: this.parseValue(),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.skipSpace();
      const c = this.text.charCodeAt(this.pos++);
      if (c === 0x7d) return out;
      if (c !== 0x2c) this.fail("Expected ',' or '}' after property value in JSON", this.pos - 1);
    }
  }

  private parseArray(): unknown[] {
    const out: unknown[] = [];
    this.pos++;
    this.skipSpace();
    if (this.text.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      out.push(this.parseValue());
      this.skipSpace();
      const c = this.text.charCodeAt(this.pos++);
      if (c === 0x5d) return out;
      if (c !== 0x2c) this.fail("Expected ',' or ']' after array element in JSON", this.pos - 1);
    }
  }

  private parseString(): string {
    const start = this.pos;
    const end = this.scanString(start);
    // The string's own JSON text is valid JSON: let the native parser do the unescaping.
    return JSON.parse(this.text.slice(start, end)) as string;
  }

  /** Returns the index just after the closing quote of the string starting at `start`. */
  private scanString(start: number): number {
    let i = start + 1;
    for (;;) {
      const c = this.text.charCodeAt(i);
      if (Number.isNaN(c)) this.fail("Unterminated string in JSON", i);
      if (c === 0x22) break;
      if (c === 0x5c) i++;
      else if (c < 0x20) this.fail("Bad control character in string literal in JSON", i);
      i++;
    }
    this.pos = i + 1;
    return this.pos;
  }

  private parseNumber(): number | bigint {
    const match = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
    match.lastIndex = this.pos;
    const m = match.exec(this.text);
    if (!m) return this.fail("No number after minus sign in JSON");
    this.pos = match.lastIndex;
    const literal = m[0];
    const n = Number(literal);
    if (m[1] === undefined && m[2] === undefined && !Number.isSafeInteger(n)) return BigInt(literal);
    return n;
  }

  private skipSpace(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.pos++;
    }
  }

  private fail(message: string, at = this.pos): never {
    throw new SyntaxError(`${message} at position ${at}`);
  }
}
