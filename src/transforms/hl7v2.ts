// hl7v2_field: reads an HL7 v2 field (ER7 text with the standard ^ & ~ delimiters, a component array, or a
// value the ER7 reader already split with the message's own delimiters) and renders it by its data type:
// ST/NM/DT/TS/CX/XPN/XAD/XTN/CWE (CE, CNE), NM + units as a Quantity, ED/RP as an Attachment.
import { toFloat } from "./casts.js";
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { compileDateConverter } from "./date-convert.js";
import { describeValue } from "./describe.js";
import { edAttachment, rpAttachment } from "./hl7v2-attachment.js";
import { at, authoritySystem, type Components, composite, nonEmpty, type Part } from "./hl7v2-composites.js";
import { er7Split, isEr7Record } from "./hl7v2-value.js";
import {
  degrade,
  fail,
  type Getter,
  type SourceRecord,
  type TransformDefinition,
  Unmappable,
} from "./types.js";
import { isUcum } from "./ucum.js";

/** Whitespace a FHIR code cannot hold: any but a single U+0020 space (the value is trimmed already). */
const INNER_WHITESPACE = /[^\S ]| {2}/;
const WHITESPACE_RUN = /\s+/g;
const UCUM = "http://unitsofmeasure.org";
/** The first components of the CWE triplets (identifier, text, coding system): CWE-1..3, 4..6, 10..12. */
const TRIPLETS = [1, 4, 10];

const ESCAPES: Record<string, string> = { F: "|", S: "^", T: "&", R: "~", E: "\\", ".br": "\n" };

export function unescapeHl7(s: string): string {
  if (!s.includes("\\")) return s;
  return s.replace(/\\(F|S|T|R|E|\.br|X[0-9A-Fa-f]+)\\/g, (_, code: string) => {
    if (code[0] === "X") return Buffer.from(code.slice(1), "hex").toString("latin1");
    return ESCAPES[code] ?? "";
  });
}

/**
 * Repetitions of a field value; each repetition as components of subcomponents. A string from an ER7
 * reader record is one already-unescaped leaf: splitting it again would break "O\\S\\BRIEN" (now "O^BRIEN").
 */
export function splitField(v: unknown, record?: SourceRecord): Components[] | undefined {
  const split = er7Split(v);
  if (split) return split;
  if (typeof v === "string" && record !== undefined && isEr7Record(record)) return [[[v]]];
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

/** A repetition's first component, its subcomponents read as components (`within_component`). */
const subcomponentsAsComponents = (rep: Components): Components => (rep[0] ?? []).map((sub) => [sub]);

// Senders pad values ("Ann Arbor "); FHIR strings must not be blank, and padding carries no meaning: `at`
// trims (hl7v2-composites.ts).
/** A component's subcomponents joined by spaces: SAD "1000&Hospital Lane" is one address line. */
const joined = (c: Components, comp: number): string =>
  (c[comp - 1] ?? [])
    .map((s) => s.trim())
    .filter(Boolean)
    .join(" ");
const list = (...xs: string[]): string[] => xs.filter((x) => x !== "");

const NAME_USE: Record<string, string> = { L: "official", D: "usual", M: "maiden", N: "nickname" };
const ADDRESS_USE: Record<string, string> = { H: "home", B: "work", O: "work", C: "temp" };
// XTN-3 and XTN-2 through the IG's TelecommunicationEquipmentType and TelecommunicationUseCode maps. The IG
// maps CP to a system "mobile" that FHIR R4 does not have: a cell phone is system phone, use mobile.
const TELECOM_SYSTEM: Record<string, string> = {
  PH: "phone",
  CP: "phone",
  FX: "fax",
  BP: "pager",
  Internet: "email",
  "X.400": "email",
  X400: "email",
  MD: "other",
  SAT: "other",
  TDD: "other",
  TTY: "other",
};
const TELECOM_USE: Record<string, string> = {
  PRN: "home",
  WPN: "work",
  PRS: "mobile",
};

const FORMATS = [
  "ST",
  "ID",
  "IS",
  "TX",
  "FT",
  "NM",
  "SN",
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
  "EI",
  "XCN",
  "XON",
  "PL",
  "CQ",
  "DR",
  "HD",
  "ED",
  "RP",
] as const;

const config = lazySchema((z) =>
  z
    .object({
      format: z.enum(FORMATS),
      component: z.number().int().min(1).optional(),
      subcomponent: z.number().int().min(1).optional(),
      /**
       * The value is one component of a composite field, whose subcomponents are this format's components:
       * SPS-1 (OBR-15.1) is a CWE written `BLD&Blood&HL70070`. Without it, only the first subcomponent is read.
       */
      within_component: z.boolean().optional(),
      repetition: z.union([z.number().int().min(1), z.literal("all")]).optional(),
      /**
       * Coding-system names (HL7 table 0396, e.g. LN, SCT, I10) -> FHIR system URIs, for CWE/CE/CNE and the
       * units of a Quantity. A key ending in `*` matches by prefix and the rest replaces `*` in the URI
       * (`HL7*: http://terminology.hl7.org/CodeSystem/v2-*` turns HL70203 into .../v2-0203).
       */
      systems: z.record(z.string(), z.string()).optional(),
      /** ST-like formats: render every repetition and join them with this text (FT/TX reports, one line each). */
      join: z.string().optional(),
      /** NM, SN: the field holding the units (a CWE such as `mg^milligram^UCUM`); the result is a Quantity. */
      unit_field: z.string().min(1).optional(),
      /**
       * NM, SN, CQ: units sent without a coding system that are a valid UCUM expression (`mg/dL`, `%`) are
       * written as UCUM (`system` http://unitsofmeasure.org, `code` the units), as UCUM-coded units are.
       */
      ucum: z.boolean().optional(),
      /** XTN: the use when XTN-2 gives none (the IG's PID-13 is `home`, PID-14 `work`). */
      use: z.enum(["home", "work", "temp", "old", "mobile"]).optional(),
      /** CX: the identifier's type whatever CX-5 says (the IG assigns one: PV1-19 is a visit number, VN). */
      identifier_type: z
        .object({ code: z.string().min(1), text: z.string().optional() })
        .strict()
        .optional(),
      /** Render only when another field (e.g. OBX.2, the value type) holds one of these values. */
      when: z
        .object({ field: z.string().min(1), in: z.array(z.string()).min(1) })
        .strict()
        .optional(),
      type: z.enum(["date", "dateTime", "instant"]).optional(),
      /** CWE/CE/CNE: the system of a coding whose coding-system name (component 3 or 6) is empty. */
      default_system: z.string().min(1).optional(),
      /**
       * CWE/CE/CNE: the names of local coding systems (HL7 table 0396: `L`, `99*`): a coding of one keeps its
       * code without a system, and the warning says the system is local rather than unknown.
       */
      local_systems: z.array(z.string().min(1)).optional(),
      /**
       * CWE/CE/CNE: the codes (-> display) the system of `default_system`/`systems` has, where a field's
       * value set is short and fixed (the OMB race categories): any other code is written without a system,
       * with a warning, rather than as a code that system does not have. A listed code sent without a
       * display gets the listed one.
       */
      codes: z.record(z.string(), z.string()).optional(),
      assume_timezone: z.string().min(1).optional(),
      /**
       * CX: the codes of HL7 table 0203 (identifier type). A CX-5 among them is a v2-0203 coding; any other
       * value is kept as `type.text` rather than written as a code the system does not have.
       */
      identifier_types: z.array(z.string().min(1)).min(1).optional(),
      /**
       * XCN, XON, PL, HD: the whole as a logical Reference (identifier and display; the default), or its `name`,
       * `identifier` or `display`; HD also as a `uri` (`urn:oid:` for ISO ids). CWE/CE/CNE: `coding`, the first
       * coding alone instead of a CodeableConcept. XPN: `nickname`, the called-by name (XPN-15) as a HumanName of
       * use nickname.
       */
      part: z.enum(["reference", "name", "identifier", "display", "uri", "coding", "nickname"]).optional(),
    })
    .strict(),
);
type Config = ConfigOf<typeof config>;

type Render = (c: Components, record: SourceRecord) => unknown;

/** How a user of the HL7 v2 reader gives the offset of times sent without one. */
const HINT = "--assume-timezone";

/** `--assume-timezone` of an HL7 v2 run: the reader puts it on every record as `$ctx.timezone`. */
function runTimezone(record: SourceRecord): string | undefined {
  const ctx = (record as { $ctx?: { timezone?: unknown } }).$ctx;
  return ctx !== null && typeof ctx === "object" && typeof ctx.timezone === "string"
    ? ctx.timezone
    : undefined;
}

/** Whether a name is one of `names` (a name ending in `*` matches by prefix: "99*" matches "99ABC"). */
function nameMatcher(names: readonly string[]): (name: string) => boolean {
  const exact = new Set(names.filter((n) => !n.endsWith("*")));
  const prefixes = names.filter((n) => n.endsWith("*")).map((n) => n.slice(0, -1));
  return (name) => exact.has(name) || prefixes.some((p) => name.length > p.length && name.startsWith(p));
}

/** Coding-system name -> URI, exact keys first, then `prefix*` keys. */
function systemResolver(systems: Record<string, string> = {}): (name: string) => string | undefined {
  const exact = new Map<string, string>();
  const prefixes: [string, string][] = [];
  for (const [k, v] of Object.entries(systems)) {
    if (k.endsWith("*")) prefixes.push([k.slice(0, -1), v]);
    else exact.set(k, v);
  }
  return (name) => {
    const hit = exact.get(name);
    if (hit !== undefined) return hit;
    for (const [p, uri] of prefixes) {
      if (name.length > p.length && name.startsWith(p)) return uri.replace("*", name.slice(p.length));
    }
    return undefined;
  };
}

/**
 * A TS/DTM/DT converter into a FHIR date, dateTime or instant. The run's --assume-timezone travels on the
 * ER7 reader's record context; a field's own assume_timezone wins over it.
 */
function timeConverter(
  type: "date" | "dateTime" | "instant",
  cfg: Config,
): (v: string, record: SourceRecord) => unknown {
  const convert = compileDateConverter({
    type,
    timezone_hint: HINT,
    ...(cfg.assume_timezone ? { assume_timezone: cfg.assume_timezone } : {}),
  });
  if (cfg.assume_timezone) return (v) => convert(v);
  const byZone = new Map<string, (v: unknown) => unknown>();
  return (v, record) => {
    const zone = runTimezone(record);
    if (zone === undefined) return convert(v);
    let zoned = byZone.get(zone);
    if (zoned === undefined) {
      zoned = compileDateConverter({ type, assume_timezone: zone, timezone_hint: HINT });
      if (byZone.size < 16) byZone.set(zone, zoned);
    }
    return zoned(v);
  };
}

const COMPARATORS: Record<string, string | undefined> = {
  "": undefined,
  "=": undefined,
  "<": "<",
  ">": ">",
  "<=": "<=",
  ">=": ">=",
};

/** A number (NM) or a structured numeric (SN: comparator ^ number), with units from another field when given. */
function quantity(
  cfg: Config,
  unitField: Getter | undefined,
  system: (n: string) => string | undefined,
): Render {
  const comp = cfg.component ?? 1;
  const sub = cfg.subcomponent ?? 1;
  const structured = cfg.format === "SN";
  return (c, record) => {
    let comparator: string | undefined;
    let text = at(c, comp, sub);
    // SN is comparator ^ number [^ separator ^ number]; a value of one component is read as a plain number,
    // so one entry serves OBX-5 of types NM and SN.
    if (structured && c.length > 1) {
      if (at(c, 3) || at(c, 4)) {
        return fail(
          "unmapped_value",
          `SN "${c.map((x) => x.join("&")).join("^")}" is a range or ratio, not one Quantity`,
        );
      }
      if (!(at(c, 1) in COMPARATORS)) return fail("invalid_value", `"${at(c, 1)}" is not an SN comparator`);
      comparator = COMPARATORS[at(c, 1)];
      text = at(c, 2);
    }
    const value = toFloat(text);
    if (value === undefined) return fail("invalid_value", `${describeValue(text)} is not a number`);
    if (!unitField) return structured ? nonEmpty({ value, comparator }) : value;
    const u = splitField(unitField(record), record)?.[0];
    if (!u) return nonEmpty({ value, comparator });
    const code = at(u, 1);
    const uri = at(u, 3) ? system(at(u, 3)) : cfg.ucum && isUcum(code) ? UCUM : undefined;
    return nonEmpty({
      value,
      comparator,
      unit: at(u, 2) || code,
      system: uri && code ? uri : undefined,
      code: uri ? code : undefined,
    });
  };
}

function renderer(cfg: Config, unitField: Getter | undefined): Render {
  const comp = cfg.component ?? 1;
  const sub = cfg.subcomponent ?? 1;
  switch (cfg.format) {
    case "SN":
      return quantity(cfg, unitField, systemResolver(cfg.systems));
    case "NM":
    case "SI":
      if (unitField) return quantity(cfg, unitField, systemResolver(cfg.systems));
      return (c) => {
        const n = toFloat(at(c, comp, sub));
        return n === undefined
          ? fail("invalid_value", `${describeValue(at(c, comp, sub))} is not a number`)
          : n;
      };
    case "DT":
    case "DTM":
    case "TS": {
      const convert = timeConverter(cfg.type ?? (cfg.format === "DT" ? "date" : "dateTime"), cfg);
      return (c, record) => convert(at(c, comp, sub), record);
    }
    case "CX": {
      const typeCodes = cfg.identifier_types ? new Set(cfg.identifier_types) : undefined;
      return (c, record) => {
        const code = at(c, 5);
        // IG CX[Identifier]: CX-4's universal id is the system, else the site table's system for the
        // namespace (and CX-5 type); the namespace names the assigner.
        const system = authoritySystem(record, at(c, 4, 1), at(c, 4, 2), at(c, 4, 3), code);
        const type = cfg.identifier_type
          ? nonEmpty({
              coding: [
                { system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: cfg.identifier_type.code },
              ],
              text: cfg.identifier_type.text,
            })
          : !code
            ? undefined
            : typeCodes === undefined || typeCodes.has(code)
              ? { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code }] }
              : { text: code };
        const assigner = at(c, 4, 1) ? { display: at(c, 4, 1) } : undefined;
        return nonEmpty({ type, system, value: at(c, 1), assigner });
      };
    }
    case "XPN":
      // IG XPN[HumanName] row 15: the called-by name is a HumanName of its own, use nickname.
      if (cfg.part === "nickname")
        return (c) => (at(c, 15) ? { use: "nickname", given: [at(c, 15)] } : undefined);
      return (c) =>
        nonEmpty({
          use: NAME_USE[at(c, 7)],
          family: at(c, 1),
          given: list(at(c, 2), ...at(c, 3).split(" ").filter(Boolean)),
          prefix: list(at(c, 5)),
          suffix: list(at(c, 4), at(c, 6), at(c, 14)),
        });
    case "XAD":
      return (c) =>
        nonEmpty({
          use: ADDRESS_USE[at(c, 7)],
          type: at(c, 7) === "M" ? "postal" : undefined,
          // IG SAD[Address]: street or mailing address, street name and dwelling number are lines of their own.
          line: list(at(c, 1, 1), at(c, 1, 2), at(c, 1, 3), joined(c, 2), at(c, 19)),
          city: at(c, 3),
          state: at(c, 4),
          postalCode: at(c, 5),
          country: at(c, 6),
        });
    case "XTN":
      return (c) => {
        const equipment = at(c, 3);
        const system = TELECOM_SYSTEM[equipment] ?? (at(c, 4) ? "email" : "phone");
        // IG XTN[ContactPoint]: the unformatted number (XTN-12), else the parts (+country area local
        // Xextension), else XTN-1.
        const parts =
          at(c, 6) || at(c, 7)
            ? [at(c, 5) && `+${at(c, 5)}`, at(c, 6), at(c, 7), at(c, 8) && `X${at(c, 8)}`]
                .filter(Boolean)
                .join(" ")
            : "";
        const phone = at(c, 12) || parts || at(c, 1);
        const value =
          equipment === "Internet" ||
          equipment === "X.400" ||
          (system === "email" && !TELECOM_SYSTEM[equipment])
            ? at(c, 4) || at(c, 1)
            : phone;
        return nonEmpty({
          system: value ? system : undefined,
          value,
          use: TELECOM_USE[at(c, 2)] ?? cfg.use ?? (equipment === "CP" ? "mobile" : undefined),
        });
      };
    case "CWE":
    case "CE":
    case "CNE": {
      const systemOf = systemResolver(cfg.systems);
      const isLocal = nameMatcher(cfg.local_systems ?? []);
      const listed = cfg.codes ? new Map(Object.entries(cfg.codes)) : undefined;
      // Per call, only what is written is allocated: the lists of problems exist only when there is one
      // (this renderer runs for every coded field of a message).
      return (c) => {
        const codings: Record<string, string>[] = [];
        let unknown: string[] | undefined;
        let local: string[] | undefined;
        let unlisted: string[] | undefined;
        let reshaped: string[] | undefined;
        // IG CWE[CodeableConcept]: the three triplets (CWE-1..3, 4..6, 10..12) are codings 1..3.
        for (let t = 0; t < 3; t++) {
          const first = TRIPLETS[t] as number;
          let code = at(c, first);
          if (!code) continue;
          // FHIR's code holds single spaces only (`[^\s]+( [^\s]+)*`): a padded local code ("CBC  PANEL",
          // a tab) is written with each run of whitespace as one space, and said so.
          if (INNER_WHITESPACE.test(code)) {
            const single = code.replace(WHITESPACE_RUN, " ");
            reshaped ??= [];
            reshaped.push(
              `code "${code}" has whitespace FHIR's code type cannot hold; written as "${single}"`,
            );
            code = single;
          }
          const shown = at(c, first + 1);
          const name = at(c, first + 2);
          let system = name ? systemOf(name) : cfg.default_system;
          if (name && !system) {
            if (isLocal(name)) {
              local ??= [];
              local.push(name);
            } else {
              unknown ??= [];
              unknown.push(name);
            }
          }
          let display = shown;
          if (system !== undefined && listed !== undefined) {
            // A code the system does not have is not written under it (a sender's local race "1").
            const known = listed.get(code);
            if (known === undefined) {
              unlisted ??= [];
              unlisted.push(`"${code}" is not among the codes this field takes from ${system}`);
              system = undefined;
            } else if (!display) display = known;
          }
          codings.push(nonEmpty({ system, code, display }) as Record<string, string>);
        }
        const text = at(c, 9) || (codings.length === 0 ? at(c, 2) : "");
        const out = cfg.part === "coding" ? codings[0] : nonEmpty({ coding: codings, text });
        if (out === undefined) return out;
        if (unknown === undefined && local === undefined && unlisted === undefined) {
          return reshaped === undefined ? out : degrade(out, "value_normalized", reshaped.join("; "));
        }
        const why = [
          ...(unknown ?? []).map((u) => `coding system "${u}" has no URI in systems`),
          ...(local ?? []).map((u) => `coding system "${u}" is a local one (HL7 table 0396: L, 99zzz)`),
          ...(unlisted ?? []),
        ];
        const reshapedToo = reshaped === undefined ? "" : `; ${reshaped.join("; ")}`;
        return degrade(
          out,
          "unmapped_value",
          `${why.join("; ")}; coding written without system${reshapedToo}`,
        );
      };
    }
    case "EI":
    case "HD":
    case "XCN":
    case "XON":
    case "PL":
      return composite(cfg.format, cfg.part === "coding" ? undefined : (cfg.part as Part | undefined));
    case "CQ": {
      const cqSystem = systemResolver(cfg.systems);
      // CQ: quantity ^ units (CWE); the units are coded when they name a known system (or, with `ucum`,
      // are a UCUM expression), else written as text only.
      return (c) => {
        const n = toFloat(at(c, 1));
        if (n === undefined)
          return at(c, 1) ? fail("invalid_value", `${describeValue(at(c, 1))} is not a number`) : undefined;
        const code = at(c, 2, 1);
        const uri = at(c, 2, 3) ? cqSystem(at(c, 2, 3)) : cfg.ucum && isUcum(code) ? UCUM : undefined;
        return nonEmpty({
          value: n,
          unit: at(c, 2, 2) || code,
          system: uri && code ? uri : undefined,
          code: uri && code ? code : undefined,
        });
      };
    }
    case "DR": {
      const convert = timeConverter(cfg.type ?? "dateTime", cfg);
      // Each end is converted alone: a half that could not be is left out (or kept cut to its date) and named.
      return (c, record) => {
        const halves = [at(c, 1), at(c, 2)].map((v) => (v ? convert(v, record) : undefined));
        const problems = halves.filter((x): x is Unmappable => x instanceof Unmappable);
        const [start, end] = halves.map((x) => (x instanceof Unmappable ? x.fallback : x)) as (
          | string
          | undefined
        )[];
        const period = nonEmpty({ start, end });
        if (problems.length === 0) return period;
        const first = problems[0] as Unmappable;
        const message = problems.map((p) => p.message).join("; ");
        return period ? degrade(period, first.code, message) : fail(first.code, message);
      };
    }
    case "ED":
      return edAttachment;
    case "RP":
      return rpAttachment;
    default:
      return (c) => at(c, comp, sub);
  }
}

/** Every repetition rendered; a repetition that could not be converted is left out (or kept degraded) and named. */
function renderAll(reps: Components[], render: Render, record: SourceRecord): unknown {
  const out: unknown[] = [];
  const problems: Unmappable[] = [];
  reps.forEach((r, i) => {
    let x = render(r, record);
    if (x instanceof Unmappable) {
      problems.push(new Unmappable(x.code, `repetition ${i + 1}: ${x.message}`, x.fallback));
      x = x.fallback;
    }
    if (x !== undefined && x !== "") out.push(x);
  });
  if (problems.length === 0) return out.length > 0 ? out : undefined;
  const message = problems.map((p) => p.message).join("; ");
  const code = (problems[0] as Unmappable).code;
  return out.length > 0 ? degrade(out, code, message) : fail(code, message);
}

export const hl7v2Field: TransformDefinition<Config> = {
  get config() {
    return config();
  },
  description:
    "An HL7 v2 field rendered by data type (ST, NM, SN, DT/DTM/TS, CX, XPN, XAD, XTN, CWE/CE/CNE); NM/SN + units as a Quantity.",
  create: (cfg, ctx) => {
    const render = renderer(cfg, cfg.unit_field ? ctx.compileSourcePath(cfg.unit_field) : undefined);
    const rep = cfg.repetition ?? 1;
    const join = cfg.join;
    const whenField = cfg.when ? ctx.compileSourcePath(cfg.when.field) : undefined;
    const whenValues = new Set(cfg.when?.in ?? []);
    const withinComponent = cfg.within_component === true;
    return (v, record) => {
      if (whenField && !whenValues.has(String(whenField(record) ?? ""))) return undefined;
      const split = splitField(v, record);
      if (!split) return fail("invalid_value", `${describeValue(v)} is not an HL7 v2 field value`);
      const reps = withinComponent ? split.map(subcomponentsAsComponents) : split;
      if (join !== undefined) {
        const parts = renderAll(reps, render, record);
        if (!(parts instanceof Unmappable)) return Array.isArray(parts) ? parts.join(join) : parts;
        return Array.isArray(parts.fallback)
          ? degrade(parts.fallback.join(join), parts.code, parts.message)
          : parts;
      }
      if (rep === "all") return renderAll(reps, render, record);
      const r = reps[rep - 1];
      return r === undefined ? undefined : render(r, record);
    };
  },
};
