// How the concept search sees text, shared by the index build and the query so the two cannot drift:
// lower case, accents and compatibility forms folded away (NFKD without combining marks), and tokens as
// runs of letters and digits.

/** Longer tokens are cut to this many UTF-16 units at both ends (no real word is that long). */
export const MAX_TOKEN = 64;

const MARKS = /\p{M}/gu;
const WORD_CHAR = /[\p{L}\p{N}]/u;

/** `Ménière's` -> `meniere's`: lower case, without accents. ASCII text (most names) takes no NFKD pass. */
export function foldText(text: string): string {
  const lower = text.toLowerCase();
  for (let i = 0; i < lower.length; i++) {
    // lower case again after NFKD: compatibility forms can decompose to capitals (U+210C to H)
    if (lower.charCodeAt(i) > 127) return lower.normalize("NFKD").replace(MARKS, "").toLowerCase();
  }
  return lower;
}

/** Whether UTF-16 unit `code` (of folded text) belongs to a token. Surrogates count as letters. */
export function isTokenChar(code: number, text: string, at: number): boolean {
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 48 && code <= 57);
  if (code >= 0xd800 && code <= 0xdfff) return true;
  return WORD_CHAR.test(text.charAt(at));
}

/** The tokens of folded text, in order, repeats included. */
export function tokensOf(folded: string): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= folded.length; i++) {
    const inToken = i < folded.length && isTokenChar(folded.charCodeAt(i), folded, i);
    if (inToken) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push(folded.slice(start, Math.min(i, start + MAX_TOKEN)));
      start = -1;
    }
  }
  return out;
}
