// More openEHR Reference Model data values in canonical JSON: dv_text, dv_date_time, and dv_coded_text from a
// coded input (a {system, code, display} coding or a {coding: [...], text} concept). Which code systems map
// to which openEHR terminology ids is config, so no terminology name lives here.
import type { z } from "zod";
import { type ConfigOf, lazySchema } from "./config-schema.js";
import {
  DATE_FORMS,
  type DateParts,
  formatDate,
  formatDateTime,
  parseDate,
  parseOffsetSetting,
} from "./dates.js";
import { describeValue, scalarKey } from "./describe.js";
import { compileDateParser } from "./strftime.js";
import { degrade, fail, type TransformDefinition } from "./types.js";

const textConfig = lazySchema((z) => z.object({}).strict() as z.ZodType<Record<string, never>>);

export const dvText: TransformDefinition<Record<string, never>> = {
  get config() {
    return textConfig();
  },
  description: "DV_TEXT with the value as text.",
  create: () => (v) => {
    const s = scalarKey(v);
    return s === undefined || s.trim() === ""
      ? fail("invalid_value", `${describeValue(v)} cannot be a text`)
      : { _type: "DV_TEXT", value: s };
  },
};

const dtConfig = lazySchema((z) =>
  z
    .object({
      /** DV_DATE_TIME (default) or DV_DATE. */
      type: z.enum(["date_time", "date"]).optional(),
      input_format: z.string().min(1).optional(),
      /** Offset written on a time that has none (e.g. "Z"); without it such a time stays a local time. */
      assume_timezone: z.string().min(1).optional(),
    })
    .strict(),
);

/**
 * openEHR date/times keep the precision the source has (Iso8601_date_time allows a date alone, and a time
 * without an offset): "2013-05-17" stays a date, "2013-05-17 08:30" a local time. Only `assume_timezone`
 * adds an offset.
 */
export const dvDateTime: TransformDefinition<ConfigOf<typeof dtConfig>> = {
  get config() {
    return dtConfig();
  },
  description:
    "DV_DATE_TIME (or DV_DATE with type: date) holding the ISO 8601 form of the value, at its precision.",
  create: (cfg) => {
    const date = cfg.type === "date";
    const custom = cfg.input_format ? compileDateParser(cfg.input_format) : undefined;
    const parse = custom
      ? (v: unknown): DateParts | undefined => (typeof v === "string" ? custom(v) : parseDate(v))
      : parseDate;
    let assumed: string | undefined;
    if (cfg.assume_timezone !== undefined) {
      assumed = parseOffsetSetting(cfg.assume_timezone);
      if (assumed === undefined)
        throw new Error(`assume_timezone "${cfg.assume_timezone}" is not Z, UTC or ±hh:mm`);
    }
    const expected = custom ? `the input_format "${cfg.input_format}"` : DATE_FORMS;
    const _type = date ? "DV_DATE" : "DV_DATE_TIME";
    return (v) => {
      const p = parse(v);
      if (!p) return fail("invalid_date", `${describeValue(v)} is not a valid date: expected ${expected}`);
      if (date || p.hour === undefined) return { _type, value: formatDate(p) };
      return { _type, value: formatDateTime(p, p.offset ?? assumed ?? "") };
    };
  },
};

const codedConfig = lazySchema((z) =>
  z
    .object({
      /** Code system URI -> openEHR terminology id, e.g. {"http://snomed.info/sct": "SNOMED-CT"}. */
      terminologies: z.record(z.string(), z.string().min(1)),
      /** Without a coding of a listed system: write the concept's text as DV_TEXT (a warning) instead of failing. */
      text_fallback: z.boolean().optional(),
    })
    .strict(),
);

interface CodingLike {
  system?: unknown;
  code?: unknown;
  display?: unknown;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

export const dvCodedTextFromCoding: TransformDefinition<ConfigOf<typeof codedConfig>> = {
  get config() {
    return codedConfig();
  },
  description:
    "DV_CODED_TEXT from the first coding whose system is listed in `terminologies` (a coding or a concept).",
  create: (cfg) => {
    const table = new Map(Object.entries(cfg.terminologies));
    return (v) => {
      if (v === null || typeof v !== "object")
        return fail("invalid_value", `${describeValue(v)} is not a coding`);
      const concept = v as { coding?: unknown; text?: unknown } & CodingLike;
      const codings: CodingLike[] = Array.isArray(concept.coding) ? concept.coding : [concept];
      for (const c of codings) {
        const system = str(c?.system);
        const code = str(c?.code);
        const terminology = system === undefined ? undefined : table.get(system);
        if (terminology === undefined || code === undefined) continue;
        return {
          _type: "DV_CODED_TEXT",
          value: str(c.display) ?? str(concept.text) ?? code,
          defining_code: {
            _type: "CODE_PHRASE",
            terminology_id: { _type: "TERMINOLOGY_ID", value: terminology },
            code_string: code,
          },
        };
      }
      const systems = codings.map((c) => str(c?.system) ?? "(none)").join(", ");
      const message = `no coding of a known terminology (systems: ${systems})`;
      const text = str(concept.text) ?? str(codings[0]?.display);
      if (cfg.text_fallback && text !== undefined)
        return degrade({ _type: "DV_TEXT", value: text }, "unmapped_value", `${message}; kept as text`);
      return fail("unmapped_value", message);
    };
  },
};
