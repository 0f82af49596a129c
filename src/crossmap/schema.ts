// The crossmap document as written in YAML: the spec's five keys plus compatible extensions.
import { z } from "zod";
import { provideValidation } from "./validation.js";

const pathString = z.string().min(1);

export const FieldEntrySchema = z
  .object({
    /**
     * `<output>.<path>`, e.g. `Patient.identifier[+].value` (an output is named after its target entity
     * unless it has a `name`); a list writes the same value into several outputs.
     */
    target: z.union([pathString, z.array(pathString).min(1)]),
    /** A condition on the record (see conditions.ts): the field is read only when it holds. */
    when: z.unknown().optional(),
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

const paths = z.union([pathString, z.array(pathString).min(1)]);

/** A part of a gathering key: a source path, or a path whose value a transform turns into the key's part. */
const keyPart = z.union([
  pathString,
  z
    .object({
      field: pathString,
      transform: z.string().min(1),
      config: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
]);
const keyParts = z.union([keyPart, z.array(keyPart).min(1)]);
export type KeyPart = z.infer<typeof keyPart>;

/**
 * One business identifier an id may come from: it applies when every `require` path is present; `with` paths
 * qualify it (an assigning authority, a code; absent ones count as empty).
 */
export const IdentityCandidateSchema = z
  .object({
    /** Part of the id (default: the candidate's position): candidates of one meaning share a name. */
    name: z.string().min(1).optional(),
    require: paths,
    with: paths.optional(),
  })
  .strict();

/**
 * How an output's id is derived: a pure function of these values, the salt and the element index. With
 * `identity`, the first applicable candidate gives it, else `source` (derived as without identity) or
 * `fallback` (a value taken as the id), with a `no_identity` warning.
 */
export const IdRuleSchema = z
  .object({
    source: paths.optional(),
    salt: z.string().optional(),
    format: z.enum(["uuid", "integer", "text"]).optional(),
    identity: z.array(IdentityCandidateSchema).min(1).optional(),
    fallback: pathString.optional(),
  })
  .strict();

/** Gathering a record into a parent record whose `key` equals this record's `key`. */
export const IntoRuleSchema = z
  .object({
    parent: z.string().min(1),
    key: keyParts,
    at: pathString,
    value: pathString.optional(),
    join: z.string().optional(),
    encode: z.enum(["base64"]).optional(),
  })
  .strict();

/** One target record a source record may produce. */
export const OutputSchema = z
  .object({
    target: z.string().min(1),
    name: z.string().min(1).optional(),
    /** Target path (relative to the entity) -> constant written into every record of this output. */
    constants: z.record(z.string(), z.unknown()).optional(),
    when: z.unknown().optional(),
    for_each: pathString.optional(),
    id: IdRuleSchema.optional(),
    key: keyParts.optional(),
    into: z.union([IntoRuleSchema, z.array(IntoRuleSchema).min(1)]).optional(),
    dedupe: z.boolean().optional(),
    /** With dedupe: lists at these paths of a merged record are appended to the first's (else the first's stay). */
    merge_append: z.array(z.string().min(1)).min(1).optional(),
    description: z.string().optional(),
  })
  .strict();

/** Routing: the first alternative whose `when` holds (one without `when`, last, is the default). */
export const ChooseSchema = z
  .object({
    choose: z.array(OutputSchema).min(1),
    when: z.unknown().optional(),
    for_each: pathString.optional(),
    description: z.string().optional(),
  })
  .strict();

/**
 * A source entity's value in `entity_map`: a target entity name (the spec's form), one output, or a list of
 * outputs and `choose` groups. Outputs are checked one by one when compiling (outputs.ts), so every problem
 * is located at its own key rather than reported as "no alternative of a union matched".
 */
export const EntityEntrySchema = z.union([
  z.string().min(1),
  z.record(z.string(), z.unknown()),
  z.array(z.unknown()).min(1),
]);

/**
 * A rule that leaves a source record out: when `when` holds, the record gives no output and one `excluded`
 * warning carrying `reason` (a resource entered in error, a procedure not done).
 */
export const ExcludeRuleSchema = z
  .object({
    when: z.unknown(),
    reason: z.string().min(1),
  })
  .strict();

export const ParameterSchema = z
  .object({
    default: z.union([z.string(), z.number(), z.boolean()]).optional(),
    description: z.string().optional(),
  })
  .strict();

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
    /** Values a run sets (`--param name=value`), read as `$param.<name>`. */
    parameters: z.record(z.string(), ParameterSchema).optional(),
    /**
     * Source entity -> its top-level fields (columns, a resource's elements) read but deliberately not
     * mapped: a run does not report them as `unread_column`.
     */
    not_mapped: z.record(z.string(), z.array(z.string().min(1))).optional(),
    /** Source entity -> the rules that leave a record of it out, checked before any output (first match). */
    exclude: z.record(z.string(), z.array(ExcludeRuleSchema).min(1)).optional(),
  })
  .strict();

export type FieldEntry = z.infer<typeof FieldEntrySchema>;
export type EntityEntry = z.infer<typeof EntityEntrySchema>;
export type OutputDocument = z.infer<typeof OutputSchema>;
export type ChooseDocument = z.infer<typeof ChooseSchema>;
export type IdRule = z.infer<typeof IdRuleSchema>;
export type IntoRule = z.infer<typeof IntoRuleSchema>;
export type ExcludeRule = z.infer<typeof ExcludeRuleSchema>;
export type CrossmapDocument = z.infer<typeof CrossmapDocumentSchema>;

// Whatever validates a crossmap document loads this module: from now on the engine checks transform
// configs and entity_map outputs with zod too (validation.ts).
provideValidation({ z, output: OutputSchema, choose: ChooseSchema });
