// Regular expressions from user documents (e.g. a `matches` condition), admitted only from a subset whose
// matching time cannot explode: checked once at load, with the offending character named; inputs capped.
import { type CharSet, charSetOf, EMPTY, intersects, union } from "./char-sets.js";

/** Longest pattern accepted. */
export const MAX_REGEX_PATTERN = 500;
/** Longest input tested: a pattern of the subset takes at most (input length)^2 steps. */
export const MAX_REGEX_INPUT = 4096;

/** A pattern outside the subset, or not a regular expression at all; `offset` is 0-based in the pattern. */
export class UnsafeRegexError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = "UnsafeRegexError";
  }
}

export interface SafeRegex {
  readonly source: string;
  readonly flags: string;
  /** "too_long" for inputs over MAX_REGEX_INPUT characters: they are not tested, and the caller says so. */
  test(input: string): boolean | "too_long";
}

const ALLOWED_FLAGS = /^[imsu]*$/;

/**
 * Compiles `pattern` if it is in the safe subset, else throws UnsafeRegexError. The subset (documented in
 * docs/crossmap-language.md, "Limits"): no backreferences or lookaround; no quantifier on a part that
 * holds another quantifier; the alternatives of a `|` start with different characters; and a repeated
 * part cannot match the character that follows it (`[^,]*,` rather than `.*,`). Under these rules a
 * backtracking matcher never revisits a character more than once per start position.
 */
export function safeRegex(pattern: string, flags = ""): SafeRegex {
  if (pattern.length > MAX_REGEX_PATTERN) {
    throw new UnsafeRegexError(
      `the pattern is ${pattern.length} characters long; the limit is ${MAX_REGEX_PATTERN}`,
      MAX_REGEX_PATTERN,
    );
  }
  if (!ALLOWED_FLAGS.test(flags)) throw new UnsafeRegexError(`flags may be i, m, s and u, got "${flags}"`, 0);
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, flags);
  } catch (err) {
    throw new UnsafeRegexError(`not a regular expression: ${(err as Error).message}`, 0);
  }
  const ctx = { ignoreCase: flags.includes("i"), dotAll: flags.includes("s"), unicode: flags.includes("u") };
  const tree = new RegexParser(pattern, ctx).parse();
  check(tree, EMPTY);
  return {
    source: pattern,
    flags,
    test: (input) => (input.length > MAX_REGEX_INPUT ? "too_long" : regex.test(input)),
  };
}

type Tree =
  | { kind: "chars"; set: CharSet; at: number }
  | { kind: "assert"; at: number }
  | { kind: "seq"; items: Tree[]; at: number }
  | { kind: "alt"; options: Tree[]; at: number }
  | { kind: "repeat"; body: Tree; min: number; max: number; at: number };

const nullable = (t: Tree): boolean => {
  switch (t.kind) {
    case "chars":
      return false;
    case "assert":
      return true;
    case "seq":
      return t.items.every(nullable);
    case "alt":
      return t.options.some(nullable);
    case "repeat":
      return t.min === 0 || nullable(t.body);
  }
};

/** The characters a match of `t` can start with. */
const first = (t: Tree): CharSet => {
  switch (t.kind) {
    case "chars":
      return t.set;
    case "assert":
      return EMPTY;
    case "seq": {
      let set = EMPTY;
      for (const item of t.items) {
        set = union(set, first(item));
        if (!nullable(item)) break;
      }
      return set;
    }
    case "alt":
      return t.options.reduce((s, o) => union(s, first(o)), EMPTY);
    case "repeat":
      return first(t.body);
  }
};

const hasRepeat = (t: Tree): boolean =>
  t.kind === "repeat" ||
  (t.kind === "seq" && t.items.some(hasRepeat)) ||
  (t.kind === "alt" && t.options.some(hasRepeat));

/** Walks `t` knowing which characters can follow it, and throws at the first ambiguity. */
function check(t: Tree, follow: CharSet): void {
  switch (t.kind) {
    case "seq": {
      let f = follow;
      for (let i = t.items.length - 1; i >= 0; i--) {
        const item = t.items[i] as Tree;
        check(item, f);
        f = nullable(item) ? union(first(item), f) : first(item);
      }
      return;
    }
    case "alt": {
      let seen = EMPTY;
      let emptyOptions = 0;
      for (const option of t.options) {
        const starts = first(option);
        if (intersects(seen, starts)) {
          throw new UnsafeRegexError(
            `the alternatives of the "|" at character ${t.at + 1} can start with the same character; make each start differently (e.g. "ab|ac" as "a(b|c)")`,
            t.at,
          );
        }
        if (nullable(option) && ++emptyOptions > 1) {
          throw new UnsafeRegexError(
            `more than one alternative of the "|" at character ${t.at + 1} can match nothing`,
            t.at,
          );
        }
        seen = union(seen, starts);
        check(option, follow);
      }
      return;
    }
    case "repeat": {
      if (t.max > 1 && hasRepeat(t.body)) {
        throw new UnsafeRegexError(
          `the quantifier at character ${t.at + 1} repeats a part that has its own quantifier (nested quantifiers)`,
          t.at,
        );
      }
      const starts = first(t.body);
      if (t.max > t.min && intersects(starts, follow)) {
        throw new UnsafeRegexError(
          `the part repeated by the quantifier at character ${t.at + 1} can match the same character as what follows it; make them differ (e.g. "[^,]*," rather than ".*,")`,
          t.at,
        );
      }
      check(t.body, t.max > 1 ? union(starts, follow) : follow);
      return;
    }
    default:
      return;
  }
}

/** A recursive-descent reader of JavaScript regex syntax, for a pattern `new RegExp` has already accepted. */
class RegexParser {
  private pos = 0;

  constructor(
    private readonly src: string,
    private readonly ctx: { ignoreCase: boolean; dotAll: boolean; unicode: boolean },
  ) {}

  parse(): Tree {
    return this.alternation();
  }

  private alternation(): Tree {
    const at = this.pos;
    const options = [this.sequence()];
    let bar = -1;
    while (this.src[this.pos] === "|") {
      if (bar < 0) bar = this.pos;
      this.pos++;
      options.push(this.sequence());
    }
    return options.length === 1 ? (options[0] as Tree) : { kind: "alt", options, at: bar < 0 ? at : bar };
  }

  private sequence(): Tree {
    const at = this.pos;
    const items: Tree[] = [];
    while (this.pos < this.src.length && this.src[this.pos] !== "|" && this.src[this.pos] !== ")") {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return { kind: "seq", items, at };
  }

  private quantified(atom: Tree): Tree {
    const at = this.pos;
    const c = this.src[this.pos];
    let min: number;
    let max: number;
    if (c === "*" || c === "+" || c === "?") {
      this.pos++;
      min = c === "+" ? 1 : 0;
      max = c === "?" ? 1 : Number.POSITIVE_INFINITY;
    } else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos, this.pos + 24));
      if (!m) return atom; // a literal "{" (allowed without the u flag)
      this.pos += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? Number.POSITIVE_INFINITY : Number(m[3]);
    } else return atom;
    if (this.src[this.pos] === "?") this.pos++; // lazy: same ambiguity
    if (atom.kind === "assert") return atom;
    return { kind: "repeat", body: atom, min, max, at };
  }

  private atom(): Tree {
    const at = this.pos;
    const c = this.src[this.pos++] as string;
    switch (c) {
      case "^":
      case "$":
        return { kind: "assert", at };
      case ".":
        return { kind: "chars", set: charSetOf.dot(this.ctx.dotAll), at };
      case "(":
        return this.group(at);
      case "[":
        return { kind: "chars", set: this.fold(this.charClass()), at };
      case "\\":
        return this.escape(at);
      default: {
        const code = this.ctx.unicode ? (this.src.codePointAt(at) as number) : c.charCodeAt(0);
        if (code > 0xffff) this.pos++;
        return { kind: "chars", set: this.fold(charSetOf.single(code)), at };
      }
    }
  }

  private group(at: number): Tree {
    if (this.src[this.pos] === "?") {
      const next = this.src[this.pos + 1];
      const after = this.src[this.pos + 2];
      if (next === "=" || next === "!" || (next === "<" && (after === "=" || after === "!"))) {
        throw new UnsafeRegexError(`lookaround at character ${at + 1} is not allowed`, at);
      }
      if (next === ":") this.pos += 2;
      else if (next === "<") this.pos = this.src.indexOf(">", this.pos) + 1;
    }
    const body = this.alternation();
    this.pos++; // ")"
    return body;
  }

  private escape(at: number): Tree {
    const c = this.src[this.pos++] as string;
    if (c === "b" || c === "B") return { kind: "assert", at };
    if (/[1-9]/.test(c) || (c === "k" && this.src[this.pos] === "<")) {
      throw new UnsafeRegexError(`backreference at character ${at + 1} is not allowed`, at);
    }
    const cls = charSetOf.escapeClass(c);
    if (cls) return { kind: "chars", set: this.fold(cls), at };
    // charSetOf.single(-1) is "any character" (a Unicode property escape).
    return { kind: "chars", set: this.fold(charSetOf.single(this.escapedCode(c))), at };
  }

  /** The code of an escaped character (after the backslash and `c`). */
  private escapedCode(c: string): number {
    const simple: Record<string, number> = { n: 10, r: 13, t: 9, f: 12, v: 11, 0: 0 };
    if (c in simple) return simple[c] as number;
    if (c === "x" && /^[0-9a-fA-F]{2}/.test(this.src.slice(this.pos))) {
      this.pos += 2;
      return Number.parseInt(this.src.slice(this.pos - 2, this.pos), 16);
    }
    if (c === "u") {
      const braced = /^\{([0-9a-fA-F]+)\}/.exec(this.src.slice(this.pos));
      if (braced && this.ctx.unicode) {
        this.pos += braced[0].length;
        return Number.parseInt(braced[1] as string, 16);
      }
      if (/^[0-9a-fA-F]{4}/.test(this.src.slice(this.pos))) {
        this.pos += 4;
        return Number.parseInt(this.src.slice(this.pos - 4, this.pos), 16);
      }
    }
    if (c === "c" && /^[A-Za-z]/.test(this.src.slice(this.pos))) {
      return (this.src.charCodeAt(this.pos++) as number) % 32;
    }
    if (c === "p" || c === "P") {
      // A Unicode property: treated as any character (conservative: it overlaps everything).
      if (this.ctx.unicode && this.src[this.pos] === "{") this.pos = this.src.indexOf("}", this.pos) + 1;
      return this.ctx.unicode ? -1 : c.charCodeAt(0);
    }
    return c.charCodeAt(0);
  }

  /** `[...]`, after the "[": the set it matches. */
  private charClass(): CharSet {
    const negated = this.src[this.pos] === "^";
    if (negated) this.pos++;
    let set = EMPTY;
    while (this.pos < this.src.length && this.src[this.pos] !== "]") {
      const lo = this.classAtom();
      if (typeof lo !== "number") {
        set = union(set, lo);
        continue;
      }
      if (this.src[this.pos] === "-" && this.src[this.pos + 1] !== "]" && this.pos + 1 < this.src.length) {
        this.pos++;
        const hi = this.classAtom();
        if (typeof hi !== "number" || lo < 0 || hi < 0) {
          set = union(set, charSetOf.all());
          continue;
        }
        set = union(set, charSetOf.range(lo, hi));
      } else set = union(set, lo < 0 ? charSetOf.all() : charSetOf.single(lo));
    }
    this.pos++; // "]"
    return negated ? charSetOf.complement(set) : set;
  }

  /** One character of a class (its code, -1 for "any"), or a class escape's set. */
  private classAtom(): number | CharSet {
    const c = this.src[this.pos++] as string;
    if (c !== "\\") {
      if (this.ctx.unicode) {
        const code = this.src.codePointAt(this.pos - 1) as number;
        if (code > 0xffff) this.pos++;
        return code;
      }
      return c.charCodeAt(0);
    }
    const e = this.src[this.pos++] as string;
    if (e === "b") return 8;
    if (e === "-") return 45;
    return charSetOf.escapeClass(e) ?? this.escapedCode(e);
  }

  private fold(set: CharSet): CharSet {
    return this.ctx.ignoreCase ? charSetOf.caseFolded(set) : set;
  }
}
