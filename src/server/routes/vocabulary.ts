// Reference data for reviewers: concept search in the server's vocabulary index (`serve --vocab`) and the
// tables and columns of each target model, for the workbench's override pickers.
import { listStandards, loadStandard } from "../../crossmap/standards.js";
import { AppError } from "../../errors.js";
import type { VocabularyBridge } from "../../vocab/bridge.js";
import { type AnyRoute, defineRoute } from "../route.js";
import {
  conceptSearchQuery,
  conceptSearchResponse,
  standardEntities,
  standardList,
} from "../schemas-vocabulary.js";

export const vocabularyRoutes = (vocabulary: VocabularyBridge | undefined): AnyRoute[] => [
  defineRoute({
    method: "get",
    path: "/api/v1/vocabulary/concepts",
    summary: "Search concepts by id, code, name or synonym",
    description:
      "Ranked: the concept whose id or code the text is; then concepts whose name starts with the text " +
      "(standard first, then shorter names); then concepts whose name or a synonym holds every word " +
      "(the last word as a prefix; standard first, then concept_id). Case- and accent-insensitive. " +
      "503 when the server runs without --vocab.",
    tag: "vocabulary",
    access: "any",
    query: conceptSearchQuery,
    response: conceptSearchResponse,
    errors: [401, 422, 503],
    handle: ({ query }) => {
      if (!vocabulary?.search) {
        throw new AppError(
          503,
          "no_vocabulary",
          "This server has no vocabulary index; start it with crossmap serve --vocab <index-dir>",
        );
      }
      const result = vocabulary.search(query.q, {
        limit: query.limit,
        ...(query.vocabulary_id?.length ? { vocabularies: query.vocabulary_id } : {}),
        ...(query.domain_id?.length ? { domains: query.domain_id } : {}),
        ...(query.standard ? { standard: true } : {}),
      });
      return {
        body: {
          concepts: result.concepts.map((c) => ({
            concept_id: c.concept_id,
            concept_name: c.concept_name,
            domain_id: c.domain_id,
            vocabulary_id: c.vocabulary_id,
            concept_class_id: c.concept_class_id,
            standard_concept: c.standard_concept,
            concept_code: c.concept_code,
            invalid_reason: c.invalid_reason,
            match: c.match,
          })),
          total: result.total,
          total_relation: result.total_relation,
        },
      };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/standards",
    summary: "The target models whose tables and columns the server knows (crossmaps/standards/)",
    tag: "vocabulary",
    access: "any",
    response: standardList,
    errors: [401],
    handle: () => ({ body: { standards: listStandards() } }),
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/standards/:standard/entities",
    summary: "A target model's tables (entities) and their columns (fields), in definition order",
    tag: "vocabulary",
    access: "any",
    response: standardEntities,
    errors: [401, 404],
    handle: ({ params }) => {
      const id = params.standard!;
      const definition = loadStandard(id);
      if (!definition) {
        const known = listStandards().map((s) => s.standard);
        throw new AppError(
          404,
          "unknown_standard",
          `No definition of standard ${id}. Known: ${known.join(", ")}`,
        );
      }
      return {
        body: {
          standard: definition.standard,
          entities: Object.entries(definition.entities).map(([name, e]) => ({
            name,
            fields: e.fields.map((f) => ({
              name: f.name,
              type: f.type ?? null,
              required: f.required === true,
            })),
          })),
        },
      };
    },
  }),
];
