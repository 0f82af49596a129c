// hl7v2_field: reads an HL7 v2 field (ER7 text with the standard ^ & ~ delimiters, or already split into
// components) and renders it by its data type: ST/NM/DT/TS/CX/XPN/XAD/XTN/CWE (CE, CNE).
import { z } from "zod";
import { toFloat } from "./casts.js";
import { compileDateConverter } from "./date-convert.js";
import { describeValue } from "./describe.js";
import { degrade, fail, type TransformDefinition } from "./types.js";

/** Components, each a list of subcomponents, unescaped. */
type Components = string[][];

const ESCAPES: Record<string, string> = { F: "|", S: "^", T: "&", R: "~", E: "\\", ".br": "\n" };

export function unescapeHl7(s: string): string {
  if (!s.includes("\\")) return s;
  return s.replace(/\\(F|S|T|R|E|\.br|X[0-9A-Fa-f]+)\\/g, (_, code: string) => {
    if (code[0] === "X") return Buffer.from(code.slice(1), "hex").toString("latin1");
    return ESCAPES[code] ?? "";
  });
}

/** Repetitions of a field value; each repetition as components of subcomponents. */
export function splitField(v: unknown): Components[] | undefined {
  if (typeof v === "string") {
    return v.split("~").map((rep) => rep.split("^").map((c) => c.split("&").map(unescapeHl7)));
  }
  if (Array.isArray(v)) {
    const comps: Components = [];
    for (const c of v) {
      if (typeof c === "string") comps.push([c]);
      else if (Array.isArray(c) && c.every((x) => typeof x === "string")) comps.push(c as string[]);
      else if (c === null || c === undefined) comps.push([""]);
      else return undefined;
    }
    return [comps];
  }
  if (typeof v === "number") return [[[String(v)]]];
  return undefined;
}

const at = (c: Components, comp: number, sub = 1): string => c[comp - 1]?.[sub - 1] ?? "";
const nonEmpty = <T extends Record<string, unknown>>(o: T): T | undefined => {
  for (const k of Object.keys(o)) {
    const x = o[k];
    if (x === undefined || x === "" || (Array.isArray(x) && x.length === 0)) delete o[k];
  }
  return Object.keys(o).length > 0 ? o : undefined;
};
const list = (...xs: string[]): string[] => xs.filter((x) => x !== "");

const NAME_USE: Record<string, string> = { L: "official", D: "usual", M: "maiden", N: "nickname" };
const ADDRESS_USE: Record<string, string> = { H: "home", B: "work", O: "work", C: "temp" };
const TELECOM_SYSTEM: Record<string, string> = {
  PH: "phone",
  CP: "phone",
  FX: "fax",
  BP: "pager",
  Internet: "email",
  X400: "email",
};
const TELECOM_USE: Record<string, string> = {
  PRN: "home",
  WPN: "work",
  ORN: "home",
  VHN: "home",
  EMR: "home",
};

const FORMATS = [
  "ST",
  "ID",
  "IS",
  "TX",
  "FT",
  "NM",
  "SI",
  "DT",
  "DTM",
  "TS",
  "CX",
  "XPN",
  "XAD",
  "XTN",
  "CWE",
  "CE",
  "CNE",
] as const;

const config = z
  .object({
    format: z.enum(FORMATS),
    component: z.number().int().min(1).optional(),
    subcomponent: z.number().int().min(1).optional(),
    repetition: z.union([z.number().int().min(1), z.literal("all")]).optional(),
    /** Coding-system names (HL7 table 0396, e.g. LN, SCT, I10) -> FHIR system URIs, for CWE/CE/CNE. */
    systems: z.record(z.string(), z.string()).optional(),
    type: z.enum(["date", "dateTime"]).optional(),
    assume_timezone: z.string().min(1).optional(),
  })
  .strict();
type Config = z.infer<typeof config>;

type Render = (c: Components) => unknown;

function renderer(cfg: Config): Render {
  const comp = cfg.component ?? 1;
  const sub = cfg.subcomponent ?? 1;
  switch (cfg.format) {
    case "NM":
    case "SI":
      return (c) => {
        const n = toFloat(at(c, comp, sub));
        return n === undefined
          ? fail("invalid_value", `${describeValue(at(c, comp, sub))} is not a number`)
          : n;
      };
    case "DT":
    case "DTM":
    case "TS": {
      const convert = compileDateConverter({
        type: cfg.type ?? (cfg.format === "DT" ? "date" : "dateTime"),
        ...(cfg.assume_timezone ? { assume_timezone: cfg.assume_timezone } : {}),
      });
      return (c) => convert(at(c, comp, sub));
    }
    case "CX":
      return (c) => {
        const universal = at(c, 4, 2);
        const kind = at(c, 4, 3);
        const system =
          universal && kind === "ISO"
            ? `urn:oid:${universal}`
            : universal && /^(URI|URL)$/.test(kind)
              ? universal
              : undefined;
        const type = at(c, 5)
          ? { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: at(c, 5) }] }
          : undefined;
        const assigner = at(c, 4, 1) ? { display: at(c, 4, 1) } : undefined;
        return nonEmpty({ type, system, value: at(c, 1), assigner });
      };
    case "XPN":
      return (c) =>
        nonEmpty({
          use: NAME_USE[at(c, 7)],
          family: at(c, 1),
          given: list(at(c, 2), ...at(c, 3).split(" ").filter(Boolean)),
          prefix: list(at(c, 5)),
          suffix: list(at(c, 4), at(c, 6)),
        });
    case "XAD":
      return (c) =>
        nonEmpty({
          use: ADDRESS_USE[at(c, 7)],
          type: at(c, 7) === "M" ? "postal" : undefined,
          line: list(at(c, 1), at(c, 2)),
          city: at(c, 3),
          state: at(c, 4),
          postalCode: at(c, 5),
          country: at(c, 6),
        });
    case "XTN":
      return (c) => {
        const equipment = at(c, 3);
        const system = TELECOM_SYSTEM[equipment] ?? (at(c, 4) ? "email" : "phone");
        const phone = at(c, 6) || at(c, 7) ? `${at(c, 6) ? `(${at(c, 6)}) ` : ""}${at(c, 7)}` : at(c, 1);
        const value = system === "email" ? at(c, 4) || at(c, 1) : phone;
        return nonEmpty({
          system: value ? system : undefined,
          value,
          use: equipment === "CP" ? "mobile" : TELECOM_USE[at(c, 2)],
        });
      };
    case "CWE":
    case "CE":
    case "CNE": {
      const systems = cfg.systems ?? {};
      return (c) => {
        const codings: Record<string, string>[] = [];
        const unknown: string[] = [];
        for (const [code, display, name] of [
          [at(c, 1), at(c, 2), at(c, 3)],
          [at(c, 4), at(c, 5), at(c, 6)],
        ] as const) {
          if (!code) continue;
          const system = name ? systems[name] : undefined;
          if (name && !system) unknown.push(name);
          const coding = nonEmpty({ system, code, display }) as Record<string, string>;
          codings.push(coding);
        }
        const text = at(c, 9) || (codings.length === 0 ? at(c, 2) : "");
        const out = nonEmpty({ coding: codings, text });
        if (out && unknown.length > 0) {
          return degrade(
            out,
            "unmapped_value",
            `coding system ${unknown.map((u) => `"${u}"`).join(", ")} has no URI in systems; coding written without system`,
          );
        }
        return out;
      };
    }
    default:
      return (c) => at(c, comp, sub);
  }
}

export const hl7v2Field: TransformDefinition<Config> = {
  config,
  description: "An HL7 v2 field rendered by data type (ST, NM, DT/DTM/TS, CX, XPN, XAD, XTN, CWE/CE/CNE).",
  create: (cfg) => {
    const render = renderer(cfg);
    const rep = cfg.repetition ?? 1;
    return (v) => {
      const reps = splitField(v);
      if (!reps) return fail("invalid_value", `${describeValue(v)} is not an HL7 v2 field value`);
      if (rep === "all") {
        const out = reps.map(render).filter((x) => x !== undefined && x !== "");
        return out.length > 0 ? out : undefined;
      }
      const r = reps[rep - 1];
      return r === undefined ? undefined : render(r);
    };
  },
};
