// Standard definitions (entities and their fields) for the mapping report, read from crossmaps/standards/.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { BUILTIN_DIR } from "./catalog.js";

const FieldSchema = z.object({
  name: z.string(),
  required: z.boolean().optional(),
  type: z.string().optional(),
});

export const StandardDefinitionSchema = z.object({
  standard: z.string(),
  entities: z.record(z.string(), z.object({ fields: z.array(FieldSchema) })),
});

export type StandardDefinition = z.infer<typeof StandardDefinitionSchema>;

const cache = new Map<string, StandardDefinition | undefined>();

/** The definition of a standard id (e.g. "omop_cdm_v5.4"), or undefined when none is shipped. */
export function loadStandard(
  id: string,
  dir: string = join(BUILTIN_DIR, "standards"),
): StandardDefinition | undefined {
  const key = `${dir}\0${id}`;
  if (cache.has(key)) return cache.get(key);
  let found: StandardDefinition | undefined;
  if (existsSync(dir)) {
    for (const file of readdirSync(dir)) {
      if (!/\.ya?ml$/.test(file)) continue;
      const doc = StandardDefinitionSchema.safeParse(parse(readFileSync(join(dir, file), "utf8")));
      if (doc.success && doc.data.standard === id) {
        found = doc.data;
        break;
      }
    }
  }
  cache.set(key, found);
  return found;
}
