// Regular expressions written in a crossmap run on every record, and a crossmap may come from an HTTP body:
// only patterns whose matching time stays linear-ish are accepted. JavaScript has no linear-time engine, so
// the patterns that backtrack exponentially are refused at load: a quantified group that itself contains a
// quantifier or an alternation (`(a+)+`, `(a|aa)*`), and backreferences.

const MAX_PATTERN = 500;

/** Undefined when the pattern is acceptable, else a sentence saying why not. */
export function unsafeRegexReason(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN) return `a pattern longer than ${MAX_PATTERN} characters`;
  try {
    new RegExp(pattern, "u");
  } catch (err) {
    return `not a valid regular expression (${(err as Error).message})`;
  }
  if (/\\[1-9]|\\k</.test(pattern)) return "a backreference";
  // Per open group: whether it holds a quantifier or an alternation so far.
  const stack: { risky: boolean }[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "(") {
      stack.push({ risky: false });
      // Group syntax (`(?:`, `(?=`, `(?<=`, `(?<name>`) is not a quantifier.
      if (pattern[i + 1] === "?") {
        if (pattern[i + 2] === "<" && pattern[i + 3] !== "=" && pattern[i + 3] !== "!") {
          const end = pattern.indexOf(">", i);
          i = end < 0 ? i + 2 : end;
        } else i += pattern[i + 2] === "<" ? 3 : 2;
      }
    } else if (c === "|") {
      const top = stack[stack.length - 1];
      if (top) top.risky = true;
    } else if (c === ")") {
      const group = stack.pop();
      const next = pattern[i + 1];
      const quantified = next === "*" || next === "+" || next === "{" || next === "?";
      if (group?.risky && quantified && next !== "?") {
        return "a repeated group that contains a repetition or an alternation (it can take exponential time)";
      }
      const parent = stack[stack.length - 1];
      if (parent && (group?.risky || quantified)) parent.risky = true;
    } else if (c === "*" || c === "+" || c === "{" || c === "?") {
      const top = stack[stack.length - 1];
      if (top) top.risky = true;
    }
  }
  return undefined;
}
