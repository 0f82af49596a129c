// first_of and chain: transforms made of other transforms, for a target that may be filled from one of several
// places (a lossless carrier, else the element other producers use) or that needs two steps (pick an
// extension, then read an id out of it). Both are built once at load; per record they are plain calls.
import type { z } from "zod";
import { isUnset } from "./absent.js";
import { type ConfigOf, lazySchema, type Zod } from "./config-schema.js";
import {
  type Getter,
  type NestedTransform,
  type SourceRecord,
  type TransformContext,
  type TransformDefinition,
  Unmappable,
} from "./types.js";

const stepSchema = (z: Zod) =>
  z
    .object({
      /** A built-in or custom transform, or a key of the document's `transforms`. Default: passthrough. */
      transform: z.string().min(1).optional(),
      config: z.record(z.string(), z.unknown()).optional(),
      /** Without a vocabulary this step yields nothing instead of failing to load. */
      vocabulary_optional: z.boolean().optional(),
    })
    .strict();
type Step = z.infer<ReturnType<typeof stepSchema>>;

const alternative = (z: Zod) =>
  stepSchema(z).extend({
    /** The source path this alternative reads; default: the field's own value. */
    source: z.string().min(1).optional(),
    /** A condition on the record (as a field's `when`): the alternative is tried only when it holds. */
    when: z.unknown().optional(),
  });

const firstOfConfig = lazySchema((z) => z.object({ alternatives: z.array(alternative(z)).min(1) }).strict());
const chainConfig = lazySchema((z) => z.object({ steps: z.array(stepSchema(z)).min(1) }).strict());

function nested(ctx: TransformContext, s: Step): NestedTransform {
  if (!ctx.transform) throw new Error("this context cannot build nested transforms");
  return ctx.transform({
    transform: s.transform ?? "passthrough",
    ...(s.config ? { config: s.config } : {}),
    ...(s.vocabulary_optional ? { vocabulary_optional: true } : {}),
  });
}

export const firstOf: TransformDefinition<ConfigOf<typeof firstOfConfig>> = {
  get config() {
    return firstOfConfig();
  },
  acceptsAbsent: true,
  description:
    "Tries `alternatives` in order (each a transform over the field or its own `source`, when its `when` holds); the first value wins. None: the first failure, else nothing.",
  create: (cfg, ctx) => {
    const alts = cfg.alternatives.map((a, i) => {
      const t = nested(ctx, a);
      const get: Getter | undefined = a.source ? ctx.compileSourcePath(a.source) : undefined;
      let when: ((record: SourceRecord) => boolean) | undefined;
      if (a.when !== undefined) {
        if (!ctx.compileCondition)
          throw new Error(`alternative ${i + 1}: this context cannot compile a "when"`);
        try {
          when = ctx.compileCondition(a.when);
        } catch (err) {
          throw new Error(`alternative ${i + 1}: when: ${(err as Error).message}`);
        }
      }
      return { ...t, get, when };
    });
    return (value: unknown, record: SourceRecord) => {
      let failure: Unmappable | undefined;
      for (const a of alts) {
        if (a.when !== undefined && !a.when(record)) continue;
        const v = a.get ? a.get(record) : value;
        if (isUnset(v) && !a.acceptsAbsent) continue;
        const r = a.fn(v, record);
        if (r instanceof Unmappable) {
          if (r.fallback !== undefined) return r;
          failure ??= r;
          continue;
        }
        if (!isUnset(r)) return r;
      }
      return failure;
    };
  },
};

export const chain: TransformDefinition<ConfigOf<typeof chainConfig>> = {
  get config() {
    return chainConfig();
  },
  acceptsAbsent: true,
  description:
    "Runs `steps` in order, each on the previous one's result; a failure or an absent result stops it.",
  create: (cfg, ctx) => {
    const steps = cfg.steps.map((s) => nested(ctx, s));
    return (value: unknown, record: SourceRecord) => {
      let v = value;
      for (const s of steps) {
        if (isUnset(v) && !s.acceptsAbsent) return undefined;
        v = s.fn(v, record);
        if (v instanceof Unmappable) return v;
      }
      return v;
    };
  },
};
