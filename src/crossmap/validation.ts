// zod and the schemas built with it, once a module that validates crossmap documents has loaded them.
// Loading zod is about a third of `crossmap map`'s start-up (95 modules, ~0.1 s on Node 20), and a built-in
// crossmap the build validated needs none of it: so the engine's compile path does not import zod. What it
// checks with zod (built-in transforms' configs, entity_map outputs) it checks when schema.ts, which every
// validation of a crossmap document imports, has provided zod here; a document compiled without it is one
// `npm run build` validated (compiled.ts, builtin.ts). The transforms' own lazy config schemas get zod
// from here too (transforms/config-schema.ts).
import { provideZod, type Zod } from "../transforms/config-schema.js";
import type { ChooseSchema, OutputSchema } from "./schema.js";

interface Validation {
  z: Zod;
  output: typeof OutputSchema;
  choose: typeof ChooseSchema;
}

let provided: Validation | undefined;

/** Called by schema.ts when it loads. */
export function provideValidation(validation: Validation): void {
  provided ??= validation;
  provideZod(validation.z);
}

/** zod and the document schemas, or undefined when nothing validating crossmap documents has loaded. */
export function validation(): Validation | undefined {
  return provided;
}
