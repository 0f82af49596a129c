// omop_codeable_concept: an OMOP concept with its source value and source concept as one FHIR CodeableConcept
// that loses none of them: the concept id as a coding under the OHDSI system (whether or not the vocabulary
// knows it), the standard code beside it when the vocabulary knows it, the source value as a coding in the
// source concept's system (marked userSelected: it is what the source recorded) or as text when it is a phrase,
// and the source concept id in an extension. omop_concept_of reads each of them back.
import { fhirSystemFor } from "../vocab/systems.js";
import { isAbsent, isBlank } from "./absent.js";
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { describeValue, scalarKey } from "./describe.js";
import {
  asCode,
  type CodeableConcept,
  type Coding,
  conceptCoding,
  conceptId,
  conceptName,
  vocabularyCoding,
} from "./omop-codes.js";
import { degrade, fail, type Getter, type SourceRecord, type TransformDefinition } from "./types.js";
import { noSystem } from "./vocabulary.js";

const config = lazySchema((z) =>
  z
    .object({
      /** The code system of concept ids, e.g. https://fhir-terminology.ohdsi.org. */
      concept_system: z.string().min(1),
      /**
       * The record's *_source_value for this concept; a list: the first present (a field's name in
       * several versions of a standard, e.g. CDM v5.4's and v5.3's).
       */
      source_value_field: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
      /** The record's *_source_concept_id for this concept. */
      source_concept_field: z.string().min(1).optional(),
      /** URL of the extension (on the CodeableConcept) that carries the source concept id. */
      source_concept_extension: z.string().min(1).optional(),
      /** Return `{url, valueCodeableConcept}` instead: for concepts whose FHIR home is a code or a profile. */
      extension_url: z.string().min(1).optional(),
    })
    .strict()
    .refine((c) => !c.source_concept_field || c.source_concept_extension, {
      message: "source_concept_field needs source_concept_extension (where the id is written)",
    }),
);

/** The first getter's value that is present. */
function firstPresent(getters: Getter[]): Getter {
  if (getters.length === 1) return getters[0] as Getter;
  return (record) => {
    for (const g of getters) {
      const v = g(record);
      if (!isAbsent(v)) return v;
    }
    return undefined;
  };
}

export const omopCodeableConcept: TransformDefinition<ConfigOf<typeof config>> = {
  get config() {
    return config();
  },
  acceptsAbsent: true,
  description:
    "An OMOP concept id (+ source value, source concept id) as a lossless CodeableConcept: OHDSI coding, standard coding, source coding or text.",
  create: (cfg, ctx) => {
    const vocab = ctx.vocabulary;
    const system = cfg.concept_system;
    const sourceValue: Getter | undefined = cfg.source_value_field
      ? firstPresent([cfg.source_value_field].flat().map((p) => ctx.compileSourcePath(p)))
      : undefined;
    const sourceConcept: Getter | undefined = cfg.source_concept_field
      ? ctx.compileSourcePath(cfg.source_concept_field)
      : undefined;
    return (value: unknown, record: SourceRecord) => {
      const id = isAbsent(value) ? 0 : conceptId(value);
      if (id === undefined) return fail("invalid_value", `${describeValue(value)} is not a concept id`);
      const codings: Coding[] = [];
      let text: string | undefined;
      if (id !== 0) {
        const { coding, concept } = conceptCoding(system, id, vocab);
        const standard = concept ? vocabularyCoding(concept) : undefined;
        if (standard) codings.push(standard);
        codings.push(coding);
      }
      let warning: string | undefined;
      const rawSource = sourceConcept?.(record);
      let sourceId = isAbsent(rawSource) ? 0 : conceptId(rawSource);
      let warningCode: string | undefined;
      if (sourceId === undefined) {
        warning = `source concept ${describeValue(rawSource)} is not a concept id; left out`;
        warningCode = "invalid_value";
        sourceId = 0;
      }
      const sv = sourceValue ? scalarKey(sourceValue(record)) : undefined;
      if (sv !== undefined && !isBlank(sv)) {
        const code = asCode(sv);
        if (code === undefined) text = sv;
        else {
          const source = sourceId !== 0 ? vocab?.getConcept(sourceId) : undefined;
          const sourceSystem = source ? fhirSystemFor(source.vocabulary_id) : undefined;
          // With a vocabulary, a source concept it lacks, or one of a vocabulary without a FHIR system,
          // leaves the source code without a system: say so. (No source concept, or no vocabulary at
          // all, is the documented form of a code whose system is unknown: no issue.)
          if (vocab && sourceId !== 0 && sourceSystem === undefined) {
            warning ??= source
              ? `source ${noSystem(source)}`
              : `source concept ${sourceId} is not in the vocabulary: source value ${JSON.stringify(code)} is written without a system`;
            warningCode ??= "unmapped_value";
          }
          const same = codings.find(
            (c) => c.system === sourceSystem && c.code === code && c.system !== system,
          );
          if (same) same.userSelected = true;
          else {
            const coding: Coding = sourceSystem === undefined ? { code } : { system: sourceSystem, code };
            const name = source && source.concept_code === code ? conceptName(source) : undefined;
            if (name !== undefined) coding.display = name;
            coding.userSelected = true;
            codings.push(coding);
          }
        }
      }
      const cc: CodeableConcept = {};
      if (sourceId !== 0 && cfg.source_concept_extension) {
        cc.extension = [
          { url: cfg.source_concept_extension, valueCoding: conceptCoding(system, sourceId, vocab).coding },
        ];
      }
      if (codings.length > 0) cc.coding = codings;
      if (text !== undefined) cc.text = text;
      if (cc.coding === undefined && cc.text === undefined && cc.extension === undefined) return undefined;
      const out = cfg.extension_url ? { url: cfg.extension_url, valueCodeableConcept: cc } : cc;
      return warning ? degrade(out, warningCode ?? "invalid_value", warning) : out;
    };
  },
};
