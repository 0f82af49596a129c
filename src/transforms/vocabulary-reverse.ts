// vocabulary_reverse_lookup: a code and its code system -> the OMOP concept, for FHIR -> OMOP and
// HL7 v2 -> OMOP mappings. The system comes from config (a FHIR URI, HL7 v2 name or vocabulary_id),
// from another source field, or from the value itself when it is a FHIR Coding or CodeableConcept.
// In a project-scoped run, the project's reviewed decisions come first (overlay.ts, decided.ts).
import type { VocabularyBridge } from "../vocab/bridge.js";
import { vocabularyForSystem } from "../vocab/systems.js";
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { applyDecision, decidedConcept, type Found, type KnownConcept } from "./decided.js";
import { describeValue, scalarKey } from "./describe.js";
import type { OverlaySlot } from "./overlay.js";
import {
  degrade,
  fail,
  type Getter,
  type SourceRecord,
  type TransformDefinition,
  Unmappable,
} from "./types.js";

const config = lazySchema((z) =>
  z
    .object({
      /** The code system of every value: a FHIR system URI, an HL7 v2 coding system name or a vocabulary_id. */
      system: z.string().min(1).optional(),
      /** A source path holding the code system of each record, e.g. `code.coding[0].system` or `DG1.3.3`. */
      system_field: z.string().min(1).optional(),
      /**
       * `concept_id` (default), `concept_code`, `concept_name`, `vocabulary_id`; `domain_id`,
       * `concept_class_id`, `standard_concept` for routing by what the concept means.
       */
      output: z
        .enum([
          "concept_id",
          "concept_code",
          "concept_name",
          "vocabulary_id",
          "domain_id",
          "concept_class_id",
          "standard_concept",
        ])
        .optional(),
      /**
       * true (default): follow "Maps to" to the standard concept (for `*_concept_id` fields);
       * false: the concept of the code itself (for `*_source_concept_id` fields).
       */
      standard: z.boolean().optional(),
    })
    .strict()
    .refine((c) => !(c.system && c.system_field), { message: "give system or system_field, not both" }),
);
type Config = ConfigOf<typeof config>;

interface Coded {
  system: unknown;
  code: unknown;
}

export const vocabularyReverseLookup: TransformDefinition<Config> = {
  get config() {
    return config();
  },
  description:
    "A code with its system (URI, HL7 v2 name or vocabulary_id; or a FHIR Coding/CodeableConcept) -> the standard OMOP concept id.",
  create: (cfg, ctx) => {
    const vocab = ctx.vocabulary;
    const standard = cfg.standard ?? true;
    // A decision names the standard concept a code maps to, not the code's own concept: it applies to
    // `*_concept_id` fields (standard: true), never to `*_source_concept_id` ones.
    const slot = standard ? ctx.overlay : undefined;
    if (!vocab && !slot) throw new Error("no vocabulary bridge configured: pass --vocab DIR");
    // A fixed system is resolved once, so a typo fails the load rather than every record; with decisions
    // a site's own system (which no vocabulary knows) is fine.
    let fixedVocabulary: string | undefined;
    if (cfg.system) {
      fixedVocabulary = vocabularyForSystem(cfg.system);
      if (!fixedVocabulary && !slot) throw new Error(`unknown code system "${cfg.system}"`);
    }
    const systemOf: Getter | undefined = cfg.system_field
      ? ctx.compileSourcePath(cfg.system_field)
      : undefined;
    const resolve = resolver(vocab, standard, slot, ctx.vocabularyOptional === true);
    const render = renderer(cfg.output ?? "concept_id");
    return (value: unknown, record: SourceRecord) => {
      const candidates: Coded[] = cfg.system
        ? [{ system: cfg.system, code: value }]
        : systemOf
          ? [{ system: systemOf(record), code: value }]
          : codingsOf(value);
      if (candidates.length === 0) {
        return fail(
          "invalid_value",
          `${describeValue(value)} is not a Coding or CodeableConcept, and no system is configured`,
        );
      }
      // A CodeableConcept may carry several codings; the first that resolves wins, else the first failure.
      let firstFailure: Unmappable | undefined;
      for (const c of candidates) {
        const r = resolve(c);
        if (r === undefined) continue;
        if (r instanceof Unmappable) {
          firstFailure ??= r;
          continue;
        }
        const out = render(r.concept);
        if (out instanceof Unmappable || !r.warning) return out;
        return degrade(out, r.warning.code, r.warning.message);
      }
      return firstFailure;
    };
  },
};

/**
 * Resolves one coding: a project's decision for the code when it has one, else what the run without the
 * project gives (decisions change only the codes they decide); undefined: nothing, and no issue (a
 * vocabulary_optional field without a vocabulary, for a code no decision names).
 */
function resolver(
  vocab: VocabularyBridge | undefined,
  standard: boolean,
  slot: OverlaySlot | undefined,
  vocabularyOptional: boolean,
): (c: Coded) => Found<KnownConcept> | Unmappable | undefined {
  return ({ system, code }) => {
    const codeKey = scalarKey(code);
    if (codeKey === undefined || codeKey === "")
      return fail("invalid_value", `${describeValue(code)} is not a code`);
    if (typeof system !== "string" || system === "")
      return fail("missing_value", `code ${JSON.stringify(codeKey)} has no code system`);
    const vocabularyId = vocabularyForSystem(system);
    const fromVocabulary = (): Found<KnownConcept> | Unmappable => {
      if (!vocabularyId) return fail("unmapped_value", `unknown code system ${JSON.stringify(system)}`);
      if (!vocab) {
        return fail(
          "concept_not_found",
          `${vocabularyId} code ${JSON.stringify(codeKey)} is not among the project's decisions, and no vocabulary is configured`,
        );
      }
      const concept = standard
        ? vocab.standardConcept(vocabularyId, codeKey)
        : vocab.lookupCode(vocabularyId, codeKey);
      if (concept) return { concept };
      return fail(
        "concept_not_found",
        standard && vocab.lookupCode(vocabularyId, codeKey)
          ? `${vocabularyId} code ${JSON.stringify(codeKey)} has no standard concept`
          : `${vocabularyId} code ${JSON.stringify(codeKey)} is not in the vocabulary`,
      );
    };
    const overlay = slot?.current;
    const decision = overlay?.find(system, vocabularyId, codeKey);
    if (!overlay || !decision) return !vocab && vocabularyOptional ? undefined : fromVocabulary();
    const what = `${vocabularyId ?? system} code ${JSON.stringify(codeKey)}`;
    return applyDecision(
      decision,
      overlay,
      what,
      (id) => decidedConcept(vocab, decision, id),
      fromVocabulary,
    );
  };
}

function renderer(output: NonNullable<Config["output"]>): (c: KnownConcept) => unknown {
  const known = (
    c: KnownConcept,
    field: "concept_code" | "concept_name" | "vocabulary_id" | "domain_id" | "concept_class_id",
  ) =>
    c[field] ??
    fail(
      "concept_not_found",
      `concept ${c.concept_id} (a project's decision) is not in the vocabulary, so its ${field} is unknown`,
    );
  switch (output) {
    case "concept_id":
      return (c) => c.concept_id;
    case "concept_code":
      return (c) => known(c, "concept_code");
    case "concept_name":
      return (c) => known(c, "concept_name");
    case "vocabulary_id":
      return (c) => known(c, "vocabulary_id");
    case "domain_id":
      return (c) => known(c, "domain_id");
    case "concept_class_id":
      return (c) => known(c, "concept_class_id");
    case "standard_concept":
      // A decided concept the vocabulary lacks: its flag is unknown, as for a non-standard concept.
      return (c) => c.standard_concept ?? undefined;
  }
}

/** The codings of a FHIR Coding (`{system, code}`) or CodeableConcept (`{coding: [...]}`), else none. */
function codingsOf(value: unknown): Coded[] {
  if (value === null || typeof value !== "object") return [];
  const v = value as { coding?: unknown; system?: unknown; code?: unknown };
  if (Array.isArray(v.coding)) {
    return v.coding
      .filter((c): c is Coded => c !== null && typeof c === "object")
      .map((c) => ({ system: c.system, code: c.code }));
  }
  return "code" in v ? [{ system: v.system, code: v.code }] : [];
}
