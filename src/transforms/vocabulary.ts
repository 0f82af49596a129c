// vocabulary_lookup: renders a concept id through the vocabulary bridge, optionally first following
// "Maps to"/"Mapped from" into target_vocabulary. Without a bridge the crossmap fails to load, unless it
// names a fallback_system for the bare concept id. In a project-scoped run, a decision for the concept's
// own code (its vocabulary_id, or that vocabulary's FHIR system, and concept_code) comes first.
import type { Concept, VocabularyBridge } from "../vocab/bridge.js";
import { fhirSystemFor } from "../vocab/systems.js";
import { toInteger } from "./casts.js";
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { applyDecision, type Found } from "./decided.js";
import { describeValue, scalarKey } from "./describe.js";
import type { OverlaySlot } from "./overlay.js";
import {
  degrade,
  fail,
  type TransformContext,
  type TransformDefinition,
  type TransformFn,
  Unmappable,
} from "./types.js";

const config = lazySchema((z) =>
  z
    .object({
      target_vocabulary: z.string().min(1).optional(),
      output: z
        .enum([
          "concept_id",
          "concept_code",
          "concept_name",
          "codeable_concept",
          "dv_coded_text",
          // For routing by what a concept means (`when: {..., transform: ..., in: [Measurement]}`).
          "domain_id",
          "concept_class_id",
          "standard_concept",
        ])
        .optional(),
      relationships: z.array(z.string().min(1)).min(1).optional(),
      /** Used only when no vocabulary is configured: codeable_concept output of the bare id under this system. */
      fallback_system: z.string().min(1).optional(),
      /**
       * Used only when no vocabulary is configured: dv_coded_text output of the bare id in this terminology
       * (e.g. "OHDSI"), its text from `fallback_text_field` (e.g. the row's *_source_value), else the id.
       */
      fallback_terminology: z.string().min(1).optional(),
      fallback_text_field: z.string().min(1).optional(),
      /**
       * Used only when no vocabulary is configured: dv_coded_text output becomes a DV_TEXT of
       * `fallback_text_field` (the row's *_source_value): without a vocabulary neither the rubric nor the
       * terminology is known, and a concept id is no code of any terminology openEHR names.
       */
      fallback_dv_text: z.boolean().optional(),
      /**
       * Concept ids that are present but name no concept (OMOP's 0, "No matching concept"): with or
       * without a vocabulary, dv_coded_text output becomes a DV_TEXT of `fallback_text_field` (the code
       * the source had), or a missing_value issue naming both fields when that is absent too.
       */
      no_concept: z.array(z.number().int()).min(1).optional(),
    })
    .strict()
    .refine((c) => !c.no_concept || (c.output === "dv_coded_text" && c.fallback_text_field !== undefined), {
      message: "no_concept needs output: dv_coded_text and fallback_text_field",
    }),
);
type Config = ConfigOf<typeof config>;

export const vocabularyLookup: TransformDefinition<Config> = {
  get config() {
    return config();
  },
  description:
    "A concept id rendered through the vocabulary bridge (optionally mapped into target_vocabulary).",
  create: (cfg, ctx) => {
    const lookup = createLookup(cfg, ctx);
    if (!cfg.no_concept || !cfg.fallback_text_field) return lookup;
    const none = new Set(cfg.no_concept);
    const field = cfg.fallback_text_field;
    const textOf = ctx.compileSourcePath(field);
    return (v, record) => {
      const id = toInteger(v);
      if (id === undefined || !none.has(Number(id))) return lookup(v, record);
      const text = scalarKey(textOf(record));
      return text
        ? { _type: "DV_TEXT", value: text }
        : fail("missing_value", `concept ${id} names no concept, and ${field} is absent`);
    };
  },
};

/** The lookup itself: through the vocabulary, else one of the fallbacks the config names. */
function createLookup(cfg: Config, ctx: TransformContext): TransformFn {
  const output = cfg.output ?? "codeable_concept";
  const vocab = ctx.vocabulary;
  if (!vocab) {
    if (cfg.fallback_system && output === "codeable_concept") {
      const system = cfg.fallback_system;
      return (v) => {
        const id = toInteger(v);
        return id === undefined
          ? fail("invalid_value", `${describeValue(v)} is not a concept id`)
          : { coding: [{ system, code: String(id) }] };
      };
    }
    if (cfg.fallback_dv_text && output === "dv_coded_text") {
      if (!cfg.fallback_text_field) throw new Error("fallback_dv_text needs fallback_text_field");
      const textOf = ctx.compileSourcePath(cfg.fallback_text_field);
      const field = cfg.fallback_text_field;
      return (v, record) => {
        const text = scalarKey(textOf(record));
        return text
          ? { _type: "DV_TEXT", value: text }
          : fail(
              "missing_value",
              `no vocabulary to render concept ${describeValue(v)}, and ${field} is absent`,
            );
      };
    }
    if (cfg.fallback_terminology && output === "dv_coded_text") {
      const terminology = cfg.fallback_terminology;
      const textOf = cfg.fallback_text_field ? ctx.compileSourcePath(cfg.fallback_text_field) : undefined;
      return (v, record) => {
        const id = toInteger(v);
        if (id === undefined) return fail("invalid_value", `${describeValue(v)} is not a concept id`);
        const text = textOf ? scalarKey(textOf(record)) : undefined;
        return {
          _type: "DV_CODED_TEXT",
          value: text || String(id),
          defining_code: {
            _type: "CODE_PHRASE",
            terminology_id: { _type: "TERMINOLOGY_ID", value: terminology },
            code_string: String(id),
          },
        };
      };
    }
    throw new Error(
      "no vocabulary bridge configured: pass --vocab DIR (or give fallback_system for codeable_concept output, fallback_terminology or fallback_dv_text for dv_coded_text)",
    );
  }
  return lookup(vocab, cfg, output, ctx.overlay);
}

function lookup(
  vocab: VocabularyBridge,
  cfg: Config,
  output: NonNullable<Config["output"]>,
  slot: OverlaySlot | undefined,
) {
  const options = {
    ...(cfg.target_vocabulary ? { targetVocabulary: cfg.target_vocabulary } : {}),
    ...(cfg.relationships ? { relationships: cfg.relationships } : {}),
  };
  const render = renderer(vocab, cfg, output, options);
  return (v: unknown) => {
    const id = toInteger(v);
    if (id === undefined || typeof id === "bigint")
      return fail("invalid_value", `${describeValue(v)} is not a concept id`);
    const own = vocab.getConcept(id);
    if (!own) return fail("concept_not_found", `concept ${id} is not in the vocabulary`);
    const overlay = slot?.current;
    const decision = overlay?.find(fhirSystemFor(own.vocabulary_id), own.vocabulary_id, own.concept_code);
    if (!overlay || !decision) return render(own);
    const found = applyDecision<Concept>(
      decision,
      overlay,
      `${own.vocabulary_id} code ${JSON.stringify(own.concept_code)} (concept ${id})`,
      (target) =>
        vocab.getConcept(target) ??
        fail(
          "concept_not_found",
          `concept ${target} (the project's decision for concept ${id}) is not in the vocabulary`,
        ),
      (): Found<Concept> => ({ concept: own }),
    );
    if (found instanceof Unmappable) return found;
    const out = render(found.concept);
    return out instanceof Unmappable || !found.warning
      ? out
      : degrade(out, found.warning.code, found.warning.message);
  };
}

function renderer(
  vocab: VocabularyBridge,
  cfg: Config,
  output: NonNullable<Config["output"]>,
  options: { targetVocabulary?: string; relationships?: string[] },
) {
  return (start: Concept): unknown => {
    let concept = start;
    const id = concept.concept_id;
    if (cfg.target_vocabulary && concept.vocabulary_id !== cfg.target_vocabulary) {
      const mapped = vocab.mapConcept(id, options)[0];
      if (!mapped) {
        return fail(
          "concept_not_found",
          `concept ${id} (${concept.vocabulary_id}) has no mapping to ${cfg.target_vocabulary}`,
        );
      }
      concept = mapped;
    }
    switch (output) {
      case "concept_id":
        return concept.concept_id;
      case "concept_code":
        return concept.concept_code;
      case "concept_name":
        return concept.concept_name;
      case "domain_id":
        return concept.domain_id;
      case "concept_class_id":
        return concept.concept_class_id;
      case "standard_concept":
        return concept.standard_concept ?? undefined;
      case "codeable_concept": {
        const cc = vocab.toCodeableConcept(concept.concept_id);
        if (!cc) return fail("concept_not_found", `concept ${concept.concept_id} cannot be rendered`);
        // A local vocabulary (or one systems.ts does not know) has no FHIR system: the code is still
        // worth writing, but never without a word.
        return fhirSystemFor(concept.vocabulary_id) === undefined
          ? degrade(cc, "unmapped_value", noSystem(concept))
          : cc;
      }
      case "dv_coded_text":
        return (
          vocab.toDvCodedText(concept.concept_id) ??
          fail("concept_not_found", `concept ${concept.concept_id} cannot be rendered`)
        );
    }
  };
}

/** The warning for a concept whose code is written without a FHIR system. */
export const noSystem = (c: Concept): string =>
  `concept ${c.concept_id} is in vocabulary ${JSON.stringify(c.vocabulary_id)}, which has no known FHIR system: its code ${JSON.stringify(c.concept_code)} is written without one`;
