// report: writes nothing and says so. For a source value a crossmap knows it cannot carry (a second
// repetition where the target holds one value, a value whose type field is empty), so that the value is
// named in an issue (`code`, `message`, the value itself) instead of being dropped unsaid. Its `when` (or
// its source path) says which records it applies to. `severity: warning` is for a value the record rightly
// holds but the target has no place for (the record is not at fault: the crossmap is).
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { fail, notice, type TransformDefinition } from "./types.js";

const config = lazySchema((z) =>
  z
    .object({
      code: z.string().regex(/^[a-z][a-z0-9_]*$/),
      message: z.string().min(1),
      /** `error` (default): the record is at fault; `warning`: a legitimate value the target cannot hold. */
      severity: z.enum(["error", "warning"]).optional(),
    })
    .strict(),
);

export const report: TransformDefinition<ConfigOf<typeof config>> = {
  get config() {
    return config();
  },
  description:
    "Writes nothing: reports the present source value as an issue (an error, or a warning with `severity: warning`) with config `code` and `message`.",
  create: (cfg) => {
    const issue = cfg.severity === "warning" ? notice(cfg.code, cfg.message) : fail(cfg.code, cfg.message);
    return () => issue;
  },
};
