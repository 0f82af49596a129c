// The crossmap document as written in YAML: the spec's five keys plus compatible extensions.
import { z } from "zod";

const pathString = z.string().min(1);

export const FieldEntrySchema = z
  .object({
    /** `<TargetEntity>.<path>`, e.g. `Patient.identifier[+].value`. */
    target: pathString,
    /** A built-in or custom transform name, or a key of `transforms`. Default: passthrough. */
    transform: z.string().min(1).optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    /** Overrides the key's field: a source path, or a list read in order until one is present. */
    source: z.union([pathString, z.array(pathString).min(1)]).optional(),
    /** Absent input counts a `missing_required` issue. */
    required: z.boolean().optional(),
    /** Input values treated as absent, e.g. OMOP's concept id 0 ("No matching concept"). */
    null_values: z.array(z.union([z.string(), z.number(), z.boolean()])).optional(),
    /**
     * Written when the field yields nothing: the source is absent, or the transform could not convert it
     * (that issue is still counted, as a warning). E.g. OMOP's concept id 0 for "no matching concept".
     */
    default: z.union([z.string(), z.number(), z.boolean()]).optional(),
    /**
     * Without a vocabulary bridge, write `default` instead of loading the transform (which would fail to
     * load): for concept lookups whose "unknown" answer is a value such as 0. Needs `default`.
     */
    vocabulary_optional: z.boolean().optional(),
    description: z.string().optional(),
    /** Reads or writes names the standard definitions lack, on purpose: `crossmap check` does not warn. */
    nonstandard: z.boolean().optional(),
  })
  .strict();

export const EntityEntrySchema = z.union([
  z.string().min(1),
  z
    .object({
      target: z.string().min(1),
      /** Target path (relative to the entity) -> constant written into every record of this entity. */
      constants: z.record(z.string(), z.unknown()).optional(),
      description: z.string().optional(),
    })
    .strict(),
]);

export const NamedTransformSchema = z.looseObject({ type: z.string().min(1) });

export const CrossmapDocumentSchema = z
  .object({
    source: z.string().min(1),
    target: z.string().min(1),
    name: z.string().optional(),
    description: z.string().optional(),
    version: z.union([z.string(), z.number()]).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    entity_map: z.record(z.string(), EntityEntrySchema),
    field_map: z.record(z.string(), z.union([FieldEntrySchema, z.array(FieldEntrySchema).min(1)])),
    transforms: z.record(z.string(), NamedTransformSchema).optional(),
    /** Target entity -> (path -> constant), applied to every source entity mapped to that target. */
    constants: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  })
  .strict();

export type FieldEntry = z.infer<typeof FieldEntrySchema>;
export type EntityEntry = z.infer<typeof EntityEntrySchema>;
export type CrossmapDocument = z.infer<typeof CrossmapDocumentSchema>;
