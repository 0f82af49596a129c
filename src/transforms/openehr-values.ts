// More openEHR Reference Model data values in canonical JSON: dv_text, dv_date_time, and dv_coded_text from a
// coded input (a {system, code, display} coding or a {coding: [...], text} concept). Which code systems map
// to which openEHR terminology ids is config, so no terminology name lives here.
import { z } from "zod";
import { compileDateConverter } from "./date-convert.js";
import { describeValue, scalarKey } from "./describe.js";
import { degrade, fail, type TransformDefinition, Unmappable } from "./types.js";

export const dvText: TransformDefinition<Record<string, never>> = {
  config: z.object({}).strict() as z.ZodType<Record<string, never>>,
  description: "DV_TEXT with the value as text.",
  create: () => (v) => {
    const s = scalarKey(v);
    return s === undefined || s.trim() === ""
      ? fail("invalid_value", `${describeValue(v)} cannot be a text`)
      : { _type: "DV_TEXT", value: s };
  },
};

const dtConfig = z
  .object({
    /** DV_DATE_TIME (default) or DV_DATE. */
    type: z.enum(["date_time", "date"]).optional(),
    input_format: z.string().min(1).optional(),
    assume_timezone: z.string().min(1).optional(),
  })
  .strict();

export const dvDateTime: TransformDefinition<z.infer<typeof dtConfig>> = {
  config: dtConfig,
  description: "DV_DATE_TIME (or DV_DATE with type: date) holding the ISO 8601 form of the value.",
  create: (cfg) => {
    const date = cfg.type === "date";
    const convert = compileDateConverter({
      type: date ? "date" : "dateTime",
      ...(cfg.input_format ? { input_format: cfg.input_format } : {}),
      ...(cfg.assume_timezone ? { assume_timezone: cfg.assume_timezone } : {}),
    });
    const _type = date ? "DV_DATE" : "DV_DATE_TIME";
    return (v) => {
      const r = convert(v);
      if (!(r instanceof Unmappable)) return { _type, value: r };
      return r.fallback === undefined ? r : degrade({ _type, value: r.fallback }, r.code, r.message);
    };
  },
};

const codedConfig = z
  .object({
    /** Code system URI -> openEHR terminology id, e.g. {"http://snomed.info/sct": "SNOMED-CT"}. */
    terminologies: z.record(z.string(), z.string().min(1)),
    /** Without a coding of a listed system: write the concept's text as DV_TEXT (a warning) instead of failing. */
    text_fallback: z.boolean().optional(),
  })
  .strict();

interface CodingLike {
  system?: unknown;
  code?: unknown;
  display?: unknown;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

export const dvCodedTextFromCoding: TransformDefinition<z.infer<typeof codedConfig>> = {
  config: codedConfig,
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
