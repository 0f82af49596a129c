// report: writes nothing and says so. For a source value a crossmap knows it cannot carry (a second
// repetition where the target holds one value, a value whose type field is empty), so that the value is
// named in an issue (`code`, `message`, the value itself) instead of being dropped unsaid. Its `when` (or
// its source path) says which records it applies to.
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { fail, type TransformDefinition } from "./types.js";

const config = lazySchema((z) =>
  z
    .object({
      code: z.string().regex(/^[a-z][a-z0-9_]*$/),
      message: z.string().min(1),
    })
    .strict(),
);

export const report: TransformDefinition<ConfigOf<typeof config>> = {
  get config() {
    return config();
  },
  description:
    "Writes nothing: reports the present source value as an error issue with config `code` and `message`.",
  create: (cfg) => {
    const issue = fail(cfg.code, cfg.message);
    return () => issue;
  },
};
