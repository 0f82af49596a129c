// Whether a units string is a valid UCUM expression (the case-sensitive "c/s" form), so HL7 v2 units sent
// without a coding system (OBX-6 `mg/dL`, `%`) can be written as a UCUM code. Checks the UCUM grammar
// (terms joined by `.` and `/`, exponents, `10*n` factors, `{annotations}`, parentheses) over the atoms and
// prefixes of the UCUM tables below: the common units of clinical data, not every atom of the standard. A
// string outside them is not called UCUM, so a local unit (`giga.l-1`, `beats/min`) keeps its text only.

const PREFIXES = [
  "da",
  "Ki",
  "Mi",
  "Gi",
  "Ti",
  "Y",
  "Z",
  "E",
  "P",
  "T",
  "G",
  "M",
  "k",
  "h",
  "d",
  "c",
  "m",
  "u",
  "n",
  "p",
  "f",
  "a",
  "z",
  "y",
];

/** Metric atoms: they take a prefix (`mg`, `mL`, `kPa`, `mm[Hg]`). */
const METRIC = new Set([
  "m",
  "s",
  "g",
  "rad",
  "K",
  "C",
  "cd",
  "mol",
  "sr",
  "Hz",
  "N",
  "Pa",
  "J",
  "W",
  "A",
  "V",
  "F",
  "Ohm",
  "S",
  "Wb",
  "Cel",
  "T",
  "H",
  "lm",
  "lx",
  "Bq",
  "Gy",
  "Sv",
  "l",
  "L",
  "ar",
  "t",
  "bar",
  "u",
  "eV",
  "cal",
  "eq",
  "osm",
  "U",
  "kat",
  "[iU]",
  "[IU]",
  "m[Hg]",
  "m[H2O]",
  "gf",
  "dyn",
  "erg",
  "P",
  "St",
  "Ci",
  "R",
  "RAD",
  "REM",
  "B",
  "bit",
  "By",
  "[CFU]",
  "[PFU]",
  "[FFU]",
]);

/** Atoms that take no prefix. */
const NON_METRIC = new Set([
  "%",
  "min",
  "h",
  "d",
  "wk",
  "mo",
  "a",
  "deg",
  "[pi]",
  "[ppth]",
  "[ppm]",
  "[ppb]",
  "[pptr]",
  "[degF]",
  "[in_i]",
  "[ft_i]",
  "[yd_i]",
  "[mi_i]",
  "[lb_av]",
  "[oz_av]",
  "[gr]",
  "[pH]",
  "[drp]",
  "[HPF]",
  "[LPF]",
  "[arb'U]",
  "[USP'U]",
  "[in_i'Hg]",
  "[cal]",
  "[Cal]",
  "[IU]",
  "[iU]",
  "[mesh_i]",
  "[hp'_X]",
  "[tb'U]",
  "[beth'U]",
  "[todd'U]",
  "[dye'U]",
  "[smgy'U]",
  "[knk'U]",
  "[mclg'U]",
  "[hnsf'U]",
  "[MPL'U]",
  "[GPL'U]",
  "[APL'U]",
  "[ka'U]",
  "[S]",
  "[sft_i]",
  "[sin_i]",
  "[cin_i]",
  "[foz_us]",
  "[gal_us]",
  "[pt_us]",
  "[qt_us]",
  "[tsp_us]",
  "[tbs_us]",
  "[cup_us]",
  "[psi]",
  "[Btu]",
  "[mi_us]",
]);

function isSimpleUnit(s: string): boolean {
  if (METRIC.has(s) || NON_METRIC.has(s)) return true;
  for (const p of PREFIXES)
    if (s.length > p.length && s.startsWith(p) && METRIC.has(s.slice(p.length))) return true;
  return false;
}

/** A recursive-descent reader of one UCUM term; `pos` is where the next character is read. */
class Reader {
  pos = 0;
  constructor(readonly s: string) {}

  term(): boolean {
    if (!this.component()) return false;
    while (this.s[this.pos] === "." || this.s[this.pos] === "/") {
      this.pos++;
      if (!this.component()) return false;
    }
    return true;
  }

  private annotation(): boolean {
    if (this.s[this.pos] !== "{") return false;
    const end = this.s.indexOf("}", this.pos);
    if (end < 0) return false;
    const body = this.s.slice(this.pos + 1, end);
    if (!/^[\x21-\x7a|~]*$/.test(body)) return false;
    this.pos = end + 1;
    return true;
  }

  private component(): boolean {
    const s = this.s;
    if (s[this.pos] === "(") {
      this.pos++;
      if (!this.term() || s[this.pos] !== ")") return false;
      this.pos++;
      return true;
    }
    if (s[this.pos] === "{") return this.annotation();
    // 10*n and 10^n (powers of ten) are atoms of their own.
    const power = /^10[*^]/.exec(s.slice(this.pos));
    if (power) {
      this.pos += 3;
      if (!this.exponent()) return false;
      if (s[this.pos] === "{") return this.annotation();
      return true;
    }
    const factor = /^\d+/.exec(s.slice(this.pos));
    if (factor) {
      this.pos += factor[0].length;
      if (s[this.pos] === "{") return this.annotation();
      return true;
    }
    // A simple unit: letters and symbols, with bracketed parts read whole (`mm[Hg]`, `[in_i'Hg]`).
    const start = this.pos;
    while (this.pos < s.length) {
      const ch = s[this.pos] as string;
      if (ch === "[") {
        const end = s.indexOf("]", this.pos);
        if (end < 0) return false;
        this.pos = end + 1;
        continue;
      }
      if (/[A-Za-z%']/.test(ch)) {
        this.pos++;
        continue;
      }
      break;
    }
    if (this.pos === start || !isSimpleUnit(s.slice(start, this.pos))) return false;
    const exp = /^[+-]?\d+/.exec(s.slice(this.pos));
    if (exp) this.pos += exp[0].length;
    if (s[this.pos] === "{") return this.annotation();
    return true;
  }

  private exponent(): boolean {
    const exp = /^[+-]?\d+/.exec(this.s.slice(this.pos));
    if (!exp) return false;
    this.pos += exp[0].length;
    return true;
  }
}

/** Whether `units` is a valid UCUM expression over the atoms this module knows (`mg/dL`, `10*3/uL`, `%`). */
export function isUcum(units: string): boolean {
  if (!units || units.length > 100 || /\s/.test(units)) return false;
  const r = new Reader(units);
  if (units[0] === "/") r.pos = 1;
  return r.term() && r.pos === units.length;
}
