// The part of OHDSI SqlRender's `render` that the DQD check queries use: `@name` parameters, then
// `{condition}?{then}:{else}` blocks whose conditions compare the substituted values.

/** Parameter values by name (without `@`); a name not given is left in the text as it is, as SqlRender does. */
export type RenderParams = Readonly<Record<string, string | undefined>>;

const PARAM = /@([A-Za-z_][A-Za-z0-9_]*)/g;

/** Substitutes the parameters, then resolves every conditional block (nested ones too). */
export function renderSql(sql: string, params: RenderParams): string {
  const substituted = sql.replace(PARAM, (whole, name: string) => params[name] ?? whole);
  return resolveConditionals(substituted);
}

/** `{cond}?{a}:{b}` -> a or b (b optional, empty); a brace that starts no such block is kept as text. */
export function resolveConditionals(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf("{", i);
    if (open < 0) break;
    const block = conditionalAt(text, open);
    if (!block) {
      out += text.slice(i, open + 1);
      i = open + 1;
      continue;
    }
    out += text.slice(i, open);
    out += resolveConditionals(evaluateCondition(block.condition) ? block.then : block.otherwise);
    i = block.end;
  }
  return out + text.slice(i);
}

interface ConditionalBlock {
  condition: string;
  then: string;
  otherwise: string;
  /** Index just after the block. */
  end: number;
}

function conditionalAt(text: string, open: number): ConditionalBlock | undefined {
  const condEnd = matchingBrace(text, open);
  if (condEnd < 0) return undefined;
  // SqlRender allows blanks around `?` and `:` (DQD writes `} ? {` in places).
  const thenOpen = after(text, condEnd + 1, "?");
  if (thenOpen < 0) return undefined;
  const thenEnd = matchingBrace(text, thenOpen);
  if (thenEnd < 0) return undefined;
  const condition = text.slice(open + 1, condEnd);
  const then = text.slice(thenOpen + 1, thenEnd);
  const elseOpen = after(text, thenEnd + 1, ":");
  const elseEnd = elseOpen < 0 ? -1 : matchingBrace(text, elseOpen);
  if (elseEnd >= 0)
    return { condition, then, otherwise: text.slice(elseOpen + 1, elseEnd), end: elseEnd + 1 };
  return { condition, then, otherwise: "", end: thenEnd + 1 };
}

/** The index of the `{` that follows `mark` (blanks allowed around it) from `from`, or -1. */
function after(text: string, from: number, mark: string): number {
  const m = /^[ \t]*(.)[ \t\r\n]*\{/.exec(text.slice(from, from + 64));
  return m && m[1] === mark ? from + m[0].length - 1 : -1;
}

function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i;
  }
  return -1;
}

type Token = { kind: "op"; text: string } | { kind: "value"; text: string };

/**
 * SqlRender's condition language: `a == b`, `a != b`, `a IN (b, c)`, `&`, `|`, `!` and parentheses over
 * quoted or bare values; a lone value is true when it reads `true` or `1` (any case).
 */
export function evaluateCondition(condition: string): boolean {
  const tokens = tokenize(condition);
  let at = 0;
  const peek = (): Token | undefined => tokens[at];
  const isOp = (text: string) => {
    const t = peek();
    return t?.kind === "op" && t.text === text;
  };
  const expect = (text: string) => {
    if (!isOp(text)) throw new Error(`expected ${text} in condition {${condition}}`);
    at++;
  };
  const value = (): string => {
    const t = tokens[at++];
    if (t?.kind !== "value") throw new Error(`expected a value in condition {${condition}}`);
    return t.text;
  };
  const primary = (): boolean => {
    if (isOp("(")) {
      at++;
      const v = or();
      expect(")");
      return v;
    }
    const left = value();
    if (isOp("==") || isOp("!=")) {
      const negate = (tokens[at++] as Token).text === "!=";
      return (left === value()) !== negate;
    }
    const next = peek();
    if (next?.kind === "value" && next.text.toUpperCase() === "IN") {
      at++;
      expect("(");
      const options = [value()];
      while (isOp(",")) {
        at++;
        options.push(value());
      }
      expect(")");
      return options.includes(left);
    }
    return /^(true|1)$/i.test(left);
  };
  const unary = (): boolean => {
    if (isOp("!")) {
      at++;
      return !unary();
    }
    return primary();
  };
  const and = (): boolean => {
    let v = unary();
    while (isOp("&")) {
      at++;
      v = unary() && v;
    }
    return v;
  };
  const or = (): boolean => {
    let v = and();
    while (isOp("|")) {
      at++;
      v = and() || v;
    }
    return v;
  };
  const result = or();
  if (at !== tokens.length) throw new Error(`unexpected text in condition {${condition}}`);
  return result;
}

function tokenize(condition: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < condition.length) {
    const c = condition[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'" || c === '"') {
      const end = condition.indexOf(c, i + 1);
      const stop = end < 0 ? condition.length : end;
      tokens.push({ kind: "value", text: condition.slice(i + 1, stop) });
      i = stop + 1;
    } else if (condition.startsWith("==", i) || condition.startsWith("!=", i)) {
      tokens.push({ kind: "op", text: condition.slice(i, i + 2) });
      i += 2;
    } else if ("()&|!,".includes(c)) {
      tokens.push({ kind: "op", text: c });
      i++;
    } else {
      let j = i;
      while (j < condition.length && !/[\s()&|!,=]/.test(condition[j] as string)) j++;
      tokens.push({ kind: "value", text: condition.slice(i, j) });
      i = j;
    }
  }
  return tokens;
}
