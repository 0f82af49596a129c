// fhir_extension and extension_value: a value carried in a FHIR extension, for data FHIR has no element for.
// The writer builds `{url, value[x]}`; the reader finds the extension by url in a list and converts its value
// back into the column's type. The URL lives in the crossmap, never here.
import { toFloat, toInteger } from "./casts.js";
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { compileDateConverter } from "./date-convert.js";
import { parseDate } from "./dates.js";
import { sqlDateTime, sqlDay } from "./datetime-text.js";
import { describeValue, scalarKey } from "./describe.js";
import { conceptCoding, conceptId, extensionValue, findExtension } from "./omop-codes.js";
import { integerOf, namesNoId } from "./stable-id.js";
import { fail, type SourceRecord, type TransformDefinition, Unmappable } from "./types.js";

const FHIR_ID = /^[A-Za-z0-9\-.]{1,64}$/;
const INT32 = 2 ** 31 - 1;

const writerConfig = lazySchema((z) =>
  z
    .object({
      url: z.string().min(1),
      /** The value[x] type: what the value becomes. */
      value_type: z.enum([
        "string",
        "integer",
        "decimal",
        "boolean",
        "date",
        "dateTime",
        "Coding",
        "Reference",
      ]),
      /** Coding: its system; with a vocabulary, a concept id gets its name as display. */
      system: z.string().min(1).optional(),
      /** Reference: the resource type it points at. */
      resource_type: z
        .string()
        .regex(/^[A-Z][A-Za-z]+$/, "must be a FHIR resource type such as Encounter")
        .optional(),
      /** Reference: prepended to the id, e.g. "visit-detail-". */
      id_prefix: z.string().optional(),
    })
    .strict()
    .refine((c) => c.value_type !== "Coding" || c.system, { message: "value_type Coding needs system" })
    .refine((c) => c.value_type !== "Reference" || c.resource_type, {
      message: "value_type Reference needs resource_type",
    }),
);

export const fhirExtension: TransformDefinition<ConfigOf<typeof writerConfig>> = {
  get config() {
    return writerConfig();
  },
  description:
    "The value in a FHIR extension: {url, value[x]} of the given type (string, integer, Coding, Reference ...).",
  create: (cfg, ctx) => {
    const url = cfg.url;
    const wrap = (key: string, v: unknown) => ({ url, [key]: v });
    switch (cfg.value_type) {
      case "string":
        return (v) => {
          const s = scalarKey(v);
          return s === undefined
            ? fail("invalid_value", `${describeValue(v)} is not text`)
            : wrap("valueString", s);
        };
      case "integer":
        return (v) => {
          const n = toInteger(v);
          if (typeof n !== "number" || Math.abs(n) > INT32)
            return fail("invalid_value", `${describeValue(v)} is not a 32-bit integer`);
          return wrap("valueInteger", n);
        };
      case "decimal":
        return (v) => {
          const n = toFloat(v);
          return n === undefined
            ? fail("invalid_value", `${describeValue(v)} is not a number`)
            : wrap("valueDecimal", n);
        };
      case "boolean":
        return (v) =>
          typeof v === "boolean"
            ? wrap("valueBoolean", v)
            : fail("invalid_value", `${describeValue(v)} is not a boolean`);
      case "date":
      case "dateTime": {
        const convert = compileDateConverter({ type: cfg.value_type, assume_timezone: "Z" });
        const key = cfg.value_type === "date" ? "valueDate" : "valueDateTime";
        return (v) => {
          const r = convert(v);
          return r instanceof Unmappable ? r : wrap(key, r);
        };
      }
      case "Coding": {
        const system = cfg.system as string;
        const vocab = ctx.vocabulary;
        return (v) => {
          const id = conceptId(v);
          if (id !== undefined) return wrap("valueCoding", conceptCoding(system, id, vocab).coding);
          const code = scalarKey(v)?.trim();
          return code
            ? wrap("valueCoding", { system, code })
            : fail("invalid_value", `${describeValue(v)} is not a code`);
        };
      }
      case "Reference": {
        const prefix = `${cfg.resource_type}/${cfg.id_prefix ?? ""}`;
        return (v) => {
          const id = scalarKey(v);
          const full = id === undefined ? undefined : `${cfg.id_prefix ?? ""}${id}`;
          if (full === undefined || !FHIR_ID.test(full))
            return fail("invalid_value", `${describeValue(v)} does not make a valid FHIR id`);
          return wrap("valueReference", { reference: prefix + id });
        };
      }
    }
  },
};

const readerConfig = lazySchema((z) =>
  z
    .object({
      url: z.string().min(1),
      /** What the extension's value becomes. */
      as: z.enum(["string", "integer", "decimal", "date", "datetime", "id"]),
      /** `id`: prefixes the referenced id may carry ("visit-detail-12" reads as 12), as integer_id. */
      prefix: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    })
    .strict(),
);

export const extensionValueReader: TransformDefinition<ConfigOf<typeof readerConfig>> = {
  get config() {
    return readerConfig();
  },
  description:
    "The value of the extension with `url` in a list of extensions, as string, integer, decimal, date, datetime or id.",
  create: (cfg) => {
    const prefixes = cfg.prefix === undefined ? [] : [cfg.prefix].flat();
    const convert = converter(cfg.as, prefixes);
    return (v: unknown, _record: SourceRecord) => {
      const ext = findExtension(v, cfg.url);
      if (!ext) return undefined;
      const x = extensionValue(ext);
      if (!x) return fail("invalid_value", `extension ${cfg.url} has no value`);
      let raw = x.value;
      if (x.type === "Coding" && raw !== null && typeof raw === "object")
        raw = (raw as { code?: unknown }).code;
      if (x.type === "Reference" && raw !== null && typeof raw === "object")
        raw = (raw as { reference?: unknown }).reference;
      return convert(raw);
    };
  },
};

function converter(as: ConfigOf<typeof readerConfig>["as"], prefixes: string[]): (raw: unknown) => unknown {
  switch (as) {
    case "string":
      return (raw) => scalarKey(raw) ?? fail("invalid_value", `${describeValue(raw)} is not text`);
    case "integer":
      return (raw) => toInteger(raw) ?? fail("invalid_value", `${describeValue(raw)} is not an integer`);
    case "decimal":
      return (raw) => toFloat(raw) ?? fail("invalid_value", `${describeValue(raw)} is not a number`);
    case "date":
    case "datetime":
      return (raw) => {
        const p = parseDate(raw);
        if (!p || p.day === undefined)
          return fail("invalid_date", `${describeValue(raw)} is not a full date`);
        return as === "date" ? sqlDay(p) : sqlDateTime(p, raw);
      };
    case "id":
      return (raw) => {
        const s = scalarKey(raw);
        const unresolved = s === undefined ? undefined : namesNoId(s);
        if (unresolved !== undefined) return unresolved;
        const n = s === undefined ? undefined : integerOf(s, prefixes);
        return n ?? fail("invalid_value", `${describeValue(raw)} is not an id or a reference`);
      };
  }
}
