// Standard definitions (entities and their fields) for the mapping report and `crossmap check`, read from
// crossmaps/standards/.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { BUILTIN_DIR, parseYaml } from "./catalog.js";
import { readCompiled, sha256 } from "./compiled.js";

const FieldSchema = z.object({
  name: z.string(),
  /** Another name the readers accept for the field (HL7 v2: `patient_name` for PID.5). */
  alias: z.string().optional(),
  required: z.boolean().optional(),
  type: z.string().optional(),
});

export const StandardDefinitionSchema = z.object({
  standard: z.string(),
  /**
   * True when `entities` and `more_entities` together name every entity of the standard, so that
   * `crossmap check` can call any other name unknown. Without it, only the fields of listed entities
   * are checked.
   */
  complete: z.boolean().optional(),
  /** Entities of the standard whose fields are not listed: their names are known, their fields unchecked. */
  more_entities: z.array(z.string()).optional(),
  /**
   * Fields every entity has (FHIR's `meta`, `text`, ...) that are left out of `fields`, so the report does
   * not call them unmapped; `crossmap check` accepts them on every entity.
   */
  common_fields: z.array(z.string()).optional(),
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
    // The file named after the standard first: parsing a definition costs ~0.1 s, so the others are read
    // only when no file has that name.
    const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
    const named = files.filter((f) => f.replace(/\.ya?ml$/, "") === id);
    const builtin = dir === join(BUILTIN_DIR, "standards") ? readCompiled()?.standards : undefined;
    for (const file of [...named, ...files.filter((f) => !named.includes(f))]) {
      const text = readFileSync(join(dir, file), "utf8");
      const seen = builtin?.find((s) => s.file === file && s.sha256 === sha256(text));
      if (seen !== undefined) {
        if (seen.definition.standard !== id) continue;
        found = seen.definition;
        break;
      }
      const doc = StandardDefinitionSchema.safeParse(parseYaml(text));
      if (doc.success && doc.data.standard === id) {
        found = doc.data;
        break;
      }
    }
  }
  cache.set(key, found);
  return found;
}

let listed: { standard: string; entities: number }[] | undefined;

/** The standards defined in crossmaps/standards/ with their entity counts, by id (read once). */
export function listStandards(dir: string = join(BUILTIN_DIR, "standards")): {
  standard: string;
  entities: number;
}[] {
  const isBuiltin = dir === join(BUILTIN_DIR, "standards");
  if (listed && isBuiltin) return listed;
  const builtin = isBuiltin ? readCompiled()?.standards : undefined;
  const out: { standard: string; entities: number }[] = [];
  for (const file of existsSync(dir) ? readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)) : []) {
    const text = readFileSync(join(dir, file), "utf8");
    const seen = builtin?.find((s) => s.file === file && s.sha256 === sha256(text));
    const doc = seen
      ? { success: true as const, data: seen.definition }
      : StandardDefinitionSchema.safeParse(parseYaml(text));
    if (!doc.success) continue;
    cache.set(`${dir}\0${doc.data.standard}`, doc.data);
    out.push({ standard: doc.data.standard, entities: Object.keys(doc.data.entities).length });
  }
  out.sort((a, b) => (a.standard < b.standard ? -1 : 1));
  if (isBuiltin) listed = out;
  return out;
}
