// omop_concept_of: one OMOP column out of a FHIR element that carries a code (a CodeableConcept, a list of
// them, a Quantity's unit, or a Coding): the concept id, the source value, the source concept id, or the
// concept's domain (for routing). An element written by omop_codeable_concept is read back exactly, without a
// vocabulary; any other element is resolved through the vocabulary, as OHDSI's conventions say. In a
// project-scoped run, the project's reviewed decisions come before the vocabulary for *_concept_id, as for
// vocabulary_reverse_lookup (decided.ts).
import type { VocabularyBridge } from "../vocab/bridge.js";
import { vocabularyForSystem } from "../vocab/systems.js";
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { applyDecision, decidedConcept, type Found, type KnownConcept } from "./decided.js";
import { describeValue, scalarKey } from "./describe.js";
import { conceptId, type Extension, extensionsOf, extensionValue, findExtension } from "./omop-codes.js";
import type { OverlaySlot } from "./overlay.js";
import { degrade, fail, type TransformDefinition, Unmappable } from "./types.js";

const config = lazySchema((z) =>
  z
    .object({
      part: z.enum(["concept_id", "source_value", "source_concept_id", "domain_id"]),
      /** The code system of concept ids, e.g. https://fhir-terminology.ohdsi.org. */
      concept_system: z.string().min(1),
      /** URL of the extension that carries the source concept id on the element. */
      source_concept_extension: z.string().min(1).optional(),
      /** URL of the extension that carries the concept id on an element that has no codings (a Quantity). */
      concept_extension: z.string().min(1).optional(),
      /** The value is a list of extensions: read the valueCodeableConcept of the one with this URL. */
      extension: z.string().min(1).optional(),
      /** Vocabulary lookups accept only standard concepts of these domains (e.g. [Visit] for Encounter.type). */
      domains: z.array(z.string().min(1)).min(1).optional(),
      /**
       * false: read only what the OMOP -> FHIR crossmap wrote, never the vocabulary (for elements whose codes
       * elsewhere are never OMOP vocabulary codes, such as an Organization's type). Default true.
       */
      vocabulary: z.boolean().optional(),
    })
    .strict(),
);
type Config = ConfigOf<typeof config>;

interface Code {
  system: unknown;
  code: unknown;
  userSelected?: unknown;
}

interface View {
  codings: Code[];
  text: string | undefined;
  extensions: Extension[];
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object";

/** Codings, text and extensions of a CodeableConcept, a Quantity or a Coding. */
function view(el: unknown): View | undefined {
  if (!isObject(el) || Array.isArray(el)) return undefined;
  const extensions = extensionsOf(el);
  if (Array.isArray(el.coding) || "text" in el) {
    const codings = Array.isArray(el.coding) ? el.coding.filter((c): c is Code => isObject(c)) : [];
    return { codings, text: typeof el.text === "string" ? el.text : undefined, extensions };
  }
  if ("value" in el || "unit" in el || "comparator" in el) {
    const codings = "code" in el ? [{ system: el.system, code: el.code }] : [];
    return { codings, text: typeof el.unit === "string" ? el.unit : undefined, extensions };
  }
  if ("code" in el) return { codings: [el as unknown as Code], text: undefined, extensions };
  return { codings: [], text: undefined, extensions };
}

export const omopConceptOf: TransformDefinition<Config> = {
  get config() {
    return config();
  },
  description:
    "concept_id, source_value, source_concept_id or domain_id of a FHIR CodeableConcept / Quantity / Coding: the OHDSI coding and extensions first, else the vocabulary.",
  create: (cfg, ctx) => {
    const vocab = cfg.vocabulary === false ? undefined : ctx.vocabulary;
    const system = cfg.concept_system;
    const ownUrls = new Set([cfg.source_concept_extension, cfg.concept_extension].filter(Boolean));
    const domains = cfg.domains ? new Set(cfg.domains) : undefined;
    const isConceptCoding = (c: Code) => c.system === system;
    const extensionId = (v: View, url: string | undefined): number | Unmappable | undefined => {
      if (!url) return undefined;
      const ext = v.extensions.find((e) => e.url === url);
      if (!ext) return undefined;
      const x = extensionValue(ext);
      const raw = x && isObject(x.value) ? x.value.code : x?.value;
      const id = conceptId(raw);
      return id ?? fail("invalid_value", `extension ${url} holds ${describeValue(raw)}, not a concept id`);
    };
    const pick = (value: unknown): View | undefined => {
      let el = value;
      if (cfg.extension) {
        const ext = findExtension(value, cfg.extension);
        el = ext?.valueCodeableConcept;
      } else if (Array.isArray(value)) {
        const views = value.map(view).filter((v): v is View => v !== undefined);
        return views.find((v) => v.codings.some(isConceptCoding)) ?? views[0];
      }
      return view(el);
    };
    const madeByCrossmap = (v: View) =>
      v.codings.some(isConceptCoding) || v.extensions.some((e) => ownUrls.has(e.url));
    const lookup = standardLookup(vocab, system, domains, ctx.overlay);
    /** The found concept's `field`, written with the decision's warning when it carries one. */
    const part = (
      found: Found<KnownConcept> | Unmappable | undefined,
      field: "concept_id" | "domain_id",
    ): unknown => {
      if (found === undefined || found instanceof Unmappable) return found;
      const out = found.concept[field];
      return found.warning && out !== undefined
        ? degrade(out, found.warning.code, found.warning.message)
        : out;
    };

    switch (cfg.part) {
      case "concept_id":
        return (value) => {
          const v = pick(value);
          if (!v) return undefined;
          const own = v.codings.find(isConceptCoding);
          if (own)
            return (
              conceptId(own.code) ?? fail("invalid_value", `${describeValue(own.code)} is not a concept id`)
            );
          const fromExtension = extensionId(v, cfg.concept_extension);
          if (fromExtension !== undefined || madeByCrossmap(v)) return fromExtension;
          return part(lookup(v.codings, true), "concept_id");
        };
      case "domain_id":
        return (value) => {
          const v = pick(value);
          if (!v || (!vocab && !ctx.overlay)) return undefined;
          const own = v.codings.find(isConceptCoding);
          const id = own ? conceptId(own.code) : undefined;
          if (id !== undefined) return vocab?.getConcept(id)?.domain_id;
          const found = lookup(v.codings, true);
          return found instanceof Unmappable || found === undefined ? undefined : found.concept.domain_id;
        };
      case "source_concept_id":
        return (value) => {
          const v = pick(value);
          if (!v) return undefined;
          const fromExtension = extensionId(v, cfg.source_concept_extension);
          if (fromExtension !== undefined || madeByCrossmap(v)) return fromExtension;
          const source =
            v.codings.find((c) => c.userSelected === true) ?? v.codings.find((c) => !isConceptCoding(c));
          if (!source) return undefined;
          return part(lookup([source], false), "concept_id");
        };
      case "source_value":
        return (value) => {
          const v = pick(value);
          if (!v) return undefined;
          const chosen = v.codings.find((c) => c.userSelected === true);
          if (chosen) return scalarKey(chosen.code);
          if (madeByCrossmap(v)) return v.text;
          const first = v.codings.find((c) => !isConceptCoding(c) && scalarKey(c.code) !== undefined);
          return first ? scalarKey(first.code) : v.text;
        };
    }
  },
};

/**
 * The concept of the first coding the vocabulary resolves: `standard` follows "Maps to" (for *_concept_id),
 * otherwise the code's own concept (for *_source_concept_id). For *_concept_id, a project's decision for
 * the code comes first. Without a vocabulary and decisions: nothing.
 */
function standardLookup(
  vocab: VocabularyBridge | undefined,
  conceptSystem: string,
  domains: Set<string> | undefined,
  slot: OverlaySlot | undefined,
): (codings: Code[], standard: boolean) => Found<KnownConcept> | Unmappable | undefined {
  return (codings, standard) => {
    const overlay = standard ? slot?.current : undefined;
    if (!vocab && !overlay) return undefined;
    let failure: Unmappable | undefined;
    for (const c of codings) {
      if (c.system === conceptSystem) continue;
      const code = scalarKey(c.code);
      if (code === undefined || code === "") continue;
      // A coding without a system names no concept (the OMOP -> FHIR crossmap writes a source value whose
      // vocabulary it does not know that way): nothing to look up, and nothing to report.
      if (typeof c.system !== "string" || c.system === "") continue;
      const vocabularyId = vocabularyForSystem(c.system);
      // A site's own code system has no source concept in any vocabulary (OMOP writes 0): the source value
      // carries the code, and the *_concept_id field reports what it could not resolve.
      if (!vocabularyId && !standard) continue;
      const fromVocabulary = (): Found<KnownConcept> | Unmappable => {
        if (!vocabularyId) return fail("unmapped_value", `unknown code system ${JSON.stringify(c.system)}`);
        if (!vocab) {
          return fail(
            "concept_not_found",
            `${vocabularyId} code ${JSON.stringify(code)} is not among the project's decisions, and no vocabulary is configured`,
          );
        }
        const concept = standard
          ? vocab.standardConcept(vocabularyId, code)
          : vocab.lookupCode(vocabularyId, code);
        if (concept && (!domains || domains.has(concept.domain_id))) return { concept };
        return fail(
          "concept_not_found",
          concept
            ? `${vocabularyId} code ${JSON.stringify(code)} is a ${concept.domain_id} concept, not ${[...(domains ?? [])].join(" or ")}`
            : standard && vocab.lookupCode(vocabularyId, code)
              ? `${vocabularyId} code ${JSON.stringify(code)} has no standard concept`
              : `${vocabularyId} code ${JSON.stringify(code)} is not in the vocabulary`,
        );
      };
      const decision = overlay?.find(c.system, vocabularyId, code);
      // A code the project decided nothing for gets what it gets without the project: without a
      // vocabulary (or with `vocabulary: false`), nothing and no issue. Decisions change only their codes.
      if (!decision && !vocab) continue;
      const found =
        overlay && decision
          ? applyDecision(
              decision,
              overlay,
              `${vocabularyId ?? c.system} code ${JSON.stringify(code)}`,
              (id) => decidedConcept(vocab, decision, id),
              fromVocabulary,
            )
          : fromVocabulary();
      if (!(found instanceof Unmappable)) return found;
      failure ??= found;
    }
    return failure;
  };
}
