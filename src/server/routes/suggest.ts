// POST /v1/projects/{project_id}/concept-mapping/suggest: ranked candidates for pushed concept items that
// have none, from the server's vocabulary (`serve --vocab`); handlers/suggest.ts does the work.
import { z } from "zod";
import { AppError } from "../../errors.js";
import type { VocabularyBridge } from "../../vocab/bridge.js";
import { suggestItems } from "../handlers/suggest.js";
import { type AnyRoute, defineRoute } from "../route.js";
import { actorOf, itemBase } from "./review.js";

/** Most items one call ranks; a client calls again while `remaining` is above 0. */
export const MAX_SUGGEST_ITEMS = 200;

const names = z.array(z.string().min(1).max(64)).max(50);

const suggestBody = z
  .object({
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_SUGGEST_ITEMS)
      .default(100)
      .meta({
        description: `Most items ranked in this call (default 100, at most ${MAX_SUGGEST_ITEMS})`,
      }),
    candidates: z
      .number()
      .int()
      .min(1)
      .max(50)
      .default(5)
      .meta({ description: "Candidates per item (default 5)" }),
    domains: names.optional().meta({ description: "Only concepts of these domain_ids" }),
    vocabularies: names.optional().meta({ description: "Only concepts of these vocabulary_ids" }),
  })
  .strict()
  .default({ limit: 100, candidates: 5 });

const suggestSummary = z.object({
  suggested: z.number().int(),
  none_found: z.number().int(),
  remaining: z.number().int(),
});

export const suggestRoutes = (vocabulary: VocabularyBridge | undefined): AnyRoute[] => [
  defineRoute({
    method: "post",
    path: `${itemBase("concept")}/suggest`,
    summary: "Rank candidate concepts for the project's concept items that have none",
    description:
      "Items awaiting review whose `candidates` is null get up to `candidates` ranked concepts from the server's vocabulary (code or `Maps to` first, then text similarity of names and synonyms; docs/suggest.md); an item without a target also gets the first as its suggestion (target fields and confidence = its score). Items with nothing found get an empty list and are not ranked again. Audited as `suggest`. Decided items are never touched. At most `limit` items per call: call again while `remaining` > 0. 503 when the server has no vocabulary.",
    tag: "concept mapping review",
    access: "write",
    body: suggestBody,
    response: suggestSummary,
    errors: [401, 403, 404, 413, 422, 503],
    handle: async ({ params, stores, principal, body }) => {
      if (!vocabulary)
        throw new AppError(503, "no_vocabulary", "This server has no vocabulary: start it with --vocab DIR");
      return {
        body: await suggestItems(stores, vocabulary, {
          projectId: params.project_id!,
          limit: body.limit,
          candidates: body.candidates,
          domains: body.domains,
          vocabularies: body.vocabularies,
          ...actorOf(principal),
        }),
      };
    },
  }),
];
