// Checks of the leaf constraints of a template: code phrases, quantities, ordinals and primitive values.
// Each returns the problems found as {code, at, message}; the template walker adds paths and nodes.
import {
  type CCodePhrase,
  type CDvOrdinal,
  type CDvQuantity,
  type CPrimitive,
  formatInterval,
  inInterval,
} from "../am/model.js";

type Json = Record<string, unknown>;

export interface LeafProblem {
  code: string;
  /** The attribute inside the checked value the problem is about ("" = the value itself). */
  at: string;
  message: string;
}

const terminologyOf = (v: Json): unknown => (v.terminology_id as Json | undefined)?.value;

export function codePhraseProblems(v: Json, c: CCodePhrase): LeafProblem[] {
  const terminology = terminologyOf(v);
  if (c.terminologyId && terminology !== c.terminologyId)
    return [
      {
        code: "terminology",
        at: "terminology_id",
        message: `terminology ${JSON.stringify(terminology)} where the template requires ${c.terminologyId}`,
      },
    ];
  if (c.codeList.length > 0 && !c.codeList.includes(String(v.code_string)))
    return [
      {
        code: "code",
        at: "code_string",
        message: `code ${JSON.stringify(v.code_string)} is not one of ${c.codeList.join(", ")}`,
      },
    ];
  return [];
}

export function quantityProblems(v: Json, c: CDvQuantity): LeafProblem[] {
  if (c.list.length === 0) return [];
  const item = c.list.find((q) => q.units === v.units);
  if (!item)
    return [
      {
        code: "units",
        at: "units",
        message: `units ${JSON.stringify(v.units)} are not one of ${c.list.map((q) => q.units).join(", ")}`,
      },
    ];
  const m = v.magnitude;
  const out: LeafProblem[] = [];
  if (typeof m === "number" && item.magnitude && !inInterval(item.magnitude, m))
    out.push({
      code: "range",
      at: "magnitude",
      message: `${m} ${item.units} is outside ${formatInterval(item.magnitude)}`,
    });
  // The archetype's precision bounds DV_QUANTITY.precision and the decimal places of the magnitude.
  const upper = item.precision?.upper;
  if (typeof m === "number" && upper !== undefined && upper >= 0 && decimals(m) > upper)
    out.push({
      code: "precision",
      at: "magnitude",
      message:
        upper === 0
          ? `${m} ${item.units} must be a whole number (precision 0)`
          : `${m} ${item.units} has more than ${upper} decimal place(s)`,
    });
  if (typeof v.precision === "number" && item.precision && !inInterval(item.precision, v.precision))
    out.push({
      code: "precision",
      at: "precision",
      message: `precision ${v.precision} is outside ${formatInterval(item.precision)}`,
    });
  return out;
}

/** Decimal places of a number as JSON writes it (1e-7 -> 7). */
function decimals(n: number): number {
  if (Number.isInteger(n)) return 0;
  const [mantissa = "", exp] = String(n).split("e");
  const frac = mantissa.split(".")[1]?.length ?? 0;
  return Math.max(0, frac - Number(exp ?? 0));
}

export function ordinalProblems(v: Json, c: CDvOrdinal): LeafProblem[] {
  const code = (v.symbol as Json | undefined)?.defining_code as Json | undefined;
  const ok = c.list.some(
    (o) =>
      o.value === v.value &&
      o.code === code?.code_string &&
      o.terminologyId === (code ? terminologyOf(code) : undefined),
  );
  if (ok) return [];
  const allowed = c.list.map((o) => `${o.value}|${o.code}`).join(", ");
  return [
    {
      code: "code",
      at: "",
      message: `ordinal ${String(v.value)}|${String(code?.code_string)} is not one of ${allowed}`,
    },
  ];
}

/** A primitive value (a String, Integer, Real, Boolean or ISO 8601 text) against its C_PRIMITIVE. */
export function primitiveProblem(v: unknown, p: CPrimitive): string | undefined {
  switch (p.type) {
    case "C_STRING":
      if (typeof v !== "string") return `must be a string, not ${JSON.stringify(v)}`;
      if (p.list && p.list.length > 0 && !p.list.includes(v))
        return `${JSON.stringify(v)} is not one of ${p.list.map((s) => JSON.stringify(s)).join(", ")}`;
      if (p.pattern !== undefined && !new RegExp(`^(?:${p.pattern})$`).test(v))
        return `${JSON.stringify(v)} does not match /${p.pattern}/`;
      return undefined;
    case "C_INTEGER":
    case "C_REAL":
      if (typeof v !== "number" || (p.type === "C_INTEGER" && !Number.isInteger(v)))
        return `must be ${p.type === "C_INTEGER" ? "an integer" : "a number"}, not ${JSON.stringify(v)}`;
      if (p.list && p.list.length > 0 && !p.list.includes(v))
        return `${v} is not one of ${p.list.join(", ")}`;
      if (p.range && !inInterval(p.range, v)) return `${v} is outside ${formatInterval(p.range)}`;
      return undefined;
    case "C_BOOLEAN":
      if (typeof v !== "boolean") return `must be a boolean, not ${JSON.stringify(v)}`;
      if ((v && !p.trueValid) || (!v && !p.falseValid)) return `${v} is not allowed`;
      return undefined;
    default:
      return typeof v === "string" ? undefined : `must be an ISO 8601 string, not ${JSON.stringify(v)}`;
  }
}
