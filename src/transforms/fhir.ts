// FHIR datatypes: codeable_concept, fhir_reference, fhir_date, fhir_period.
import { isBlank } from "./absent.js";
import { type ConfigOf, lazySchema, type Zod } from "./config-schema.js";
import { compileDateConverter } from "./date-convert.js";
import { describeValue, scalarKey } from "./describe.js";
import { degrade, fail, type Getter, type TransformDefinition, Unmappable } from "./types.js";

const dateOptions = (z: Zod) => ({
  input_format: z.string().min(1).optional(),
  assume_timezone: z.string().min(1).optional(),
});

const optionalText = (get: Getter | undefined, record: Record<string, unknown>): string | undefined => {
  if (!get) return undefined;
  const t = scalarKey(get(record));
  // Only whitespace is no text: a FHIR string needs a character that is not whitespace.
  return t === undefined || isBlank(t) ? undefined : t;
};

const ccConfig = lazySchema((z) =>
  z
    .object({
      system: z.string().min(1),
      display_field: z.string().min(1).optional(),
      text_field: z.string().min(1).optional(),
      version: z.string().min(1).optional(),
    })
    .strict(),
);

export const codeableConcept: TransformDefinition<ConfigOf<typeof ccConfig>> = {
  get config() {
    return ccConfig();
  },
  description: "The value as the code of a one-coding CodeableConcept in `system`.",
  create: (cfg, ctx) => {
    const display = cfg.display_field ? ctx.compileSourcePath(cfg.display_field) : undefined;
    const text = cfg.text_field ? ctx.compileSourcePath(cfg.text_field) : undefined;
    return (v, record) => {
      const code = scalarKey(v);
      if (code === undefined) return fail("invalid_value", `${describeValue(v)} cannot be a code`);
      const coding: Record<string, string> = { system: cfg.system };
      if (cfg.version) coding.version = cfg.version;
      coding.code = code;
      const d = optionalText(display, record);
      if (d !== undefined) coding.display = d;
      const out: Record<string, unknown> = { coding: [coding] };
      const t = optionalText(text, record);
      if (t !== undefined) out.text = t;
      return out;
    };
  },
};

const refConfig = lazySchema((z) =>
  z
    .object({
      resource_type: z.string().regex(/^[A-Z][A-Za-z]+$/, "must be a FHIR resource type such as Patient"),
      display_field: z.string().min(1).optional(),
    })
    .strict(),
);

const FHIR_ID = /^[A-Za-z0-9\-.]{1,64}$/;

export const fhirReference: TransformDefinition<ConfigOf<typeof refConfig>> = {
  get config() {
    return refConfig();
  },
  description: "A Reference to `resource_type`/<value>; the value must be a valid FHIR id.",
  create: (cfg, ctx) => {
    const prefix = `${cfg.resource_type}/`;
    const display = cfg.display_field ? ctx.compileSourcePath(cfg.display_field) : undefined;
    return (v, record) => {
      const id = scalarKey(v);
      let reference: string;
      if (id !== undefined && FHIR_ID.test(id)) reference = prefix + id;
      else if (id !== undefined && (id.startsWith(prefix) || /^urn:(uuid|oid):/.test(id))) reference = id;
      else
        return fail("invalid_value", `${describeValue(v)} is not a valid FHIR id (1-64 of A-Z a-z 0-9 - .)`);
      const out: Record<string, string> = { reference };
      const d = optionalText(display, record);
      if (d !== undefined) out.display = d;
      return out;
    };
  },
};

const dateConfig = lazySchema((z) =>
  z.object({ type: z.enum(["date", "dateTime", "instant"]).optional(), ...dateOptions(z) }).strict(),
);

export const fhirDate: TransformDefinition<ConfigOf<typeof dateConfig>> = {
  get config() {
    return dateConfig();
  },
  description: "A FHIR date (default; keeps partial precision), dateTime (keeps the offset) or instant.",
  create: (cfg) => compileDateConverter(cfg),
};

const periodConfig = lazySchema((z) =>
  z
    .object({
      start_field: z.string().min(1).optional(),
      end_field: z.string().min(1).optional(),
      type: z.enum(["date", "dateTime"]).optional(),
      ...dateOptions(z),
    })
    .strict(),
);

export const fhirPeriod: TransformDefinition<ConfigOf<typeof periodConfig>> = {
  get config() {
    return periodConfig();
  },
  acceptsAbsent: true,
  description: "A Period from start_field (default: the field itself) and end_field.",
  create: (cfg, ctx) => {
    const start = ctx.compileSourcePath(cfg.start_field ?? ctx.sourcePath);
    const end = cfg.end_field ? ctx.compileSourcePath(cfg.end_field) : undefined;
    const convert = compileDateConverter({ ...cfg, type: cfg.type ?? "dateTime" });
    const absent = (x: unknown) => x === undefined || x === null || x === "";
    return (_v, record) => {
      const out: Record<string, string> = {};
      const problems: Unmappable[] = [];
      for (const [key, get] of [
        ["start", start],
        ["end", end],
      ] as const) {
        const raw = get?.(record);
        if (absent(raw)) continue;
        const r = convert(raw);
        if (r instanceof Unmappable) {
          problems.push(r);
          if (r.fallback === undefined) continue;
          out[key] = r.fallback as string;
        } else out[key] = r;
      }
      if (out.start && out.end && Date.parse(out.end) < Date.parse(out.start)) {
        problems.push(fail("invalid_period", `end ${out.end} is before start ${out.start}; end left out`));
        delete out.end;
      }
      if (problems.length === 0) return out.start || out.end ? out : undefined;
      const message = problems.map((p) => p.message).join("; ");
      const code = (problems[0] as Unmappable).code;
      return out.start || out.end ? degrade(out, code, message) : fail(code, message);
    };
  },
};
