// omop_quantity: an OMOP number with its unit as a FHIR Quantity: the unit as recorded (unit_source_value),
// its UCUM code from the unit concept (the vocabulary's concept_code; without a vocabulary the recorded unit,
// when the ETL mapped it to a unit concept at all), and the unit concept and unit source concept ids in
// extensions, so that omop_concept_of reads all three back.

import { isUnset } from "./absent.js";
import { toFloat } from "./casts.js";
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { describeValue, scalarKey } from "./describe.js";
import { asCode, conceptCoding, conceptId, type Extension } from "./omop-codes.js";
import { fail, type Getter, type SourceRecord, type TransformDefinition } from "./types.js";

const config = lazySchema((z) =>
  z
    .object({
      /** The code system of concept ids, e.g. https://fhir-terminology.ohdsi.org. */
      concept_system: z.string().min(1),
      /** The unit's code system, e.g. http://unitsofmeasure.org. */
      unit_system: z.string().min(1),
      /** The vocabulary whose concept codes are codes of unit_system (OMOP: UCUM). */
      unit_vocabulary: z.string().min(1).optional(),
      /** The unit as recorded (unit_source_value). */
      unit_field: z.string().min(1).optional(),
      /** The unit concept (unit_concept_id). */
      unit_concept_field: z.string().min(1).optional(),
      /** Where the unit concept id is written on the Quantity. */
      unit_concept_extension: z.string().min(1).optional(),
      /** The unit's source concept (unit_source_concept_id). */
      unit_source_concept_field: z.string().min(1).optional(),
      unit_source_concept_extension: z.string().min(1).optional(),
    })
    .strict(),
);

export const omopQuantity: TransformDefinition<ConfigOf<typeof config>> = {
  get config() {
    return config();
  },
  description:
    "A number with its unit as a Quantity: unit as recorded, UCUM code from the unit concept, unit concept ids in extensions.",
  create: (cfg, ctx) => {
    const vocab = ctx.vocabulary;
    const unitVocabulary = cfg.unit_vocabulary ?? "UCUM";
    const path = (p: string | undefined): Getter | undefined => (p ? ctx.compileSourcePath(p) : undefined);
    const unitOf = path(cfg.unit_field);
    const unitConceptOf = path(cfg.unit_concept_field);
    const sourceConceptOf = path(cfg.unit_source_concept_field);
    return (v: unknown, record: SourceRecord) => {
      const value = toFloat(v);
      if (value === undefined) return fail("invalid_value", `${describeValue(v)} is not a number`);
      const out: Record<string, unknown> = {};
      const extensions: Extension[] = [];
      const unitId = unitConceptOf ? conceptId(unitConceptOf(record)) : undefined;
      if (unitId !== undefined && unitId !== 0 && cfg.unit_concept_extension) {
        extensions.push({
          url: cfg.unit_concept_extension,
          valueCoding: conceptCoding(cfg.concept_system, unitId, vocab).coding,
        });
      }
      const sourceId = sourceConceptOf ? conceptId(sourceConceptOf(record)) : undefined;
      if (sourceId !== undefined && sourceId !== 0 && cfg.unit_source_concept_extension) {
        extensions.push({
          url: cfg.unit_source_concept_extension,
          valueCoding: conceptCoding(cfg.concept_system, sourceId, vocab).coding,
        });
      }
      if (extensions.length > 0) out.extension = extensions;
      out.value = value;
      const raw = unitOf?.(record);
      const unit = isUnset(raw) ? undefined : scalarKey(raw);
      if (unit !== undefined) out.unit = unit;
      let code: string | undefined;
      if (unitId !== undefined && unitId !== 0) {
        const concept = vocab?.getConcept(unitId);
        if (concept) code = concept.vocabulary_id === unitVocabulary ? concept.concept_code : undefined;
        else if (unit !== undefined) code = asCode(unit);
      }
      if (code !== undefined) {
        out.system = cfg.unit_system;
        out.code = code;
      }
      return out;
    };
  },
};
