// ODIN (dADL), the data syntax of ADL 1.4's language, description and ontology sections and of C_DV_QUANTITY
// blocks: nested `name = <...>` and `["key"] = <...>` blocks holding strings, numbers, code terms and intervals.
import { parseIntervalBody, type RawInterval, Scanner } from "./scanner.js";

/** A code term `[terminology::code]`. */
export class CodeTerm {
  constructor(
    readonly terminology: string,
    readonly code: string,
  ) {}
}

export class OdinInterval {
  constructor(readonly interval: RawInterval) {}
}

export type OdinValue =
  | string
  | number
  | boolean
  | CodeTerm
  | OdinInterval
  | OdinValue[]
  | { [key: string]: OdinValue };

export type OdinObject = { [key: string]: OdinValue };

/** Parses a whole ODIN text (a sequence of attributes) into an object. */
export function parseOdin(text: string, firstLine = 1): OdinObject {
  const s = new Scanner(text, firstLine);
  const out = readAttributes(s);
  if (s.skip()) s.fail(`unexpected ${JSON.stringify(s.around())}`);
  return out;
}

/** Reads attributes until a `>` or the end (left unconsumed). */
export function readAttributes(s: Scanner): OdinObject {
  const out: OdinObject = {};
  while (s.skip() && s.peek() !== ">") {
    let key: string;
    if (s.accept("[")) {
      key = s.peek() === '"' ? s.string() : s.until("]");
      s.expect("]");
    } else key = s.identifier();
    s.expect("=");
    out[key] = readBlock(s);
  }
  return out;
}

/** Reads `< value >`. */
export function readBlock(s: Scanner): OdinValue {
  s.expect("<");
  if (s.accept(">")) return {};
  const c = s.peek();
  // Nested attributes: a name followed by `=`, or a `["key"]` / `[1]` key (a code term has `::` instead).
  const save = s.pos;
  const keyed = c === "[" && /^\[\s*("|\d+\s*\])/.test(s.text.slice(s.pos, s.pos + 20));
  let nested = keyed;
  if (!nested && /[A-Za-z_]/.test(c)) {
    s.identifier();
    nested = s.peek() === "=";
    s.pos = save;
  }
  if (nested) {
    const obj = readAttributes(s);
    s.expect(">");
    return obj;
  }
  const values: OdinValue[] = [];
  for (;;) {
    values.push(readPrimitive(s));
    if (s.accept(",")) {
      if (s.accept("...")) break;
      continue;
    }
    break;
  }
  s.expect(">");
  return values.length === 1 ? (values[0] as OdinValue) : values;
}

function readPrimitive(s: Scanner): OdinValue {
  const c = s.peek();
  if (c === '"') return s.string();
  if (c === "[") {
    s.expect("[");
    const body = s.until("]");
    s.expect("]");
    const i = body.indexOf("::");
    if (i < 0) s.fail(`expected a code term [terminology::code], found [${body}]`);
    return new CodeTerm(body.slice(0, i).trim(), body.slice(i + 2).trim());
  }
  if (c === "|") {
    s.expect("|");
    const body = s.until("|");
    s.expect("|");
    return new OdinInterval(parseIntervalBody(body));
  }
  if (s.acceptWord("True") || s.acceptWord("true")) return true;
  if (s.acceptWord("False") || s.acceptWord("false")) return false;
  const m = /^[^,>\s]+/.exec(s.text.slice(s.pos, s.pos + 100));
  if (!m) return s.fail(`unexpected ${JSON.stringify(s.around())}`);
  s.pos += m[0].length;
  const n = Number(m[0]);
  return Number.isFinite(n) ? n : m[0];
}
