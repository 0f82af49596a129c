// A project's decisions in and out: exports (crossmap YAML, SOURCE_TO_CONCEPT_MAP CSV, FHIR R4
// ConceptMap), imports of mapping files (Usagi, SOURCE_TO_CONCEPT_MAP), and revalidation against the
// server's vocabulary release.
import { z } from "zod";
import { AppError } from "../../errors.js";
import { IMPORT_FORMATS, type ImportFormat } from "../../review/import-mappings.js";
import type { VocabularyBridge } from "../../vocab/bridge.js";
import { type DataPool, streamed } from "../data-pool.js";
import { type AnyRoute, defineRoute } from "../route.js";
import { pushResult } from "../schemas.js";
import { actorOf } from "./review.js";

const base = "/api/v1/projects/:project_id";
const tag = "project data";

const noVocabulary = () =>
  new AppError(503, "no_vocabulary", "This server has no vocabulary: start it with --vocab DIR");

const name = z
  .string()
  .min(1)
  .max(200)
  .regex(/^\P{Cc}*$/u, { error: "string must not contain control characters" });

const importQuery = z
  .object({
    source_vocabulary_id: name.optional().meta({
      description: "Code system of every source code (Usagi files do not say; STCM rows do and win)",
    }),
    source_column: name
      .optional()
      .meta({ description: "Source column of the codes (part of the natural key)" }),
    force: z.enum(["true", "false"]).default("false").meta({
      description: "true: also overwrite items a reviewer has decided here",
    }),
  })
  .strict();

const importSummary = z.object({
  format: z.enum(IMPORT_FORMATS as [ImportFormat, ...ImportFormat[]]),
  created: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  skipped: z.number().int(),
  items: z.array(pushResult.extend({ line: z.number().int() })),
  problems: z.array(
    z.object({ line: z.number().int(), severity: z.enum(["error", "warning"]), message: z.string() }),
  ),
});

const revalidateBody = z
  .object({ dry_run: z.boolean().optional().meta({ description: "Report, change nothing" }) })
  .strict()
  .optional();

const revalidateSummary = z.object({
  release: z.string().nullable(),
  checked: z.number().int(),
  reopened: z.number().int(),
  dry_run: z.boolean(),
  items: z.array(
    z.object({
      id: z.string(),
      reason: z.enum(["missing", "invalid", "non_standard"]),
      previous_concept_id: z.number().int(),
      suggested_concept_id: z.number().int().nullable(),
      suggested_via: z.enum(["Maps to", "Concept replaced by"]).nullable(),
    }),
  ),
});

const download = (file: string) => ({ "Content-Disposition": `attachment; filename="${file}"` });
const JSON_TYPE = "application/json; charset=utf-8";

/** Every route here runs in a data worker (`data`): its work grows with the project's items. */
export const projectDataRoutes = (vocabulary: VocabularyBridge | undefined, data: DataPool): AnyRoute[] => [
  defineRoute({
    method: "get",
    path: `${base}/exports/crossmap`,
    summary: "The approved and overridden schema items as a crossmap (YAML) that crossmap check accepts",
    description:
      "Source column -> target table.column, with the transform the target column's type implies. Items a crossmap cannot hold (a second target table for a source table, a target column written twice) are listed in comments at the top. 409 when the project has no target_model.",
    tag,
    access: "read",
    query: z
      .object({ source: name.optional().meta({ description: "The crossmap's source standard name" }) })
      .strict(),
    response: z.string(),
    produces: "application/yaml; charset=utf-8",
    errors: [401, 403, 404, 409, 422],
    handle: async ({ params, query }) =>
      streamed(
        await data.run({ kind: "export-crossmap", projectId: params.project_id!, source: query.source }),
        "application/yaml; charset=utf-8",
        download("crossmap.yaml"),
      ),
  }),
  defineRoute({
    method: "get",
    path: `${base}/exports/source-to-concept-map`,
    summary: "The mapped concept items as OMOP CDM v5.4 SOURCE_TO_CONCEPT_MAP rows (CSV)",
    description:
      "Items with method auto, manual or override; valid from the day of the decision to 2099-12-31. 422 names every item that cannot make a valid row (no source vocabulary, a value wider than the CDM's column).",
    tag,
    access: "read",
    query: z
      .object({
        source_vocabulary_id: name
          .optional()
          .meta({ description: "For items without a source_vocabulary_id" }),
      })
      .strict(),
    response: z.string(),
    produces: "text/csv; charset=utf-8",
    errors: [401, 403, 404, 422],
    handle: async ({ params, query }) =>
      streamed(
        await data.run({
          kind: "export-stcm",
          projectId: params.project_id!,
          sourceVocabularyId: query.source_vocabulary_id,
        }),
        "text/csv; charset=utf-8",
        download("source_to_concept_map.csv"),
      ),
  }),
  defineRoute({
    method: "get",
    path: `${base}/exports/concept-map`,
    summary: "The concept decisions as a FHIR R4 ConceptMap",
    description:
      "One group per source and target code system; mapped items with their equivalence (default equivalent), rejected ones as unmatched; comments kept. With --vocab, targets carry their own system and code; without, the OMOP concept id under the OHDSI system.",
    tag,
    access: "read",
    response: z.record(z.string(), z.unknown()),
    produces: "application/fhir+json; charset=utf-8",
    errors: [401, 403, 404],
    handle: async ({ params }) =>
      streamed(
        await data.run({ kind: "export-concept-map", projectId: params.project_id! }),
        "application/fhir+json; charset=utf-8",
      ),
  }),
  defineRoute({
    method: "post",
    path: `${base}/imports/:format`,
    summary: "Import a mapping file (CSV): Usagi's export, or a SOURCE_TO_CONCEPT_MAP table",
    description:
      "`format` is `usagi` or `source-to-concept-map`. One transaction; statuses, equivalence and comments kept; a bad row is reported by line and left out. An item a reviewer decided here is skipped unless force=true.",
    tag,
    access: "write",
    query: importQuery,
    body: z
      .string()
      .meta({ description: "The file, as text/csv (UTF-8; gzip, deflate or br Content-Encoding taken)" }),
    csv: true,
    response: importSummary,
    errors: [401, 403, 404, 413, 422],
    handle: async ({ params, stores, query, body, principal }) => {
      const format = params.format as ImportFormat;
      if (!IMPORT_FORMATS.includes(format)) {
        throw new AppError(
          404,
          "not_found",
          `No import format ${format}; known: ${IMPORT_FORMATS.join(", ")}`,
        );
      }
      const out = await data.run({
        kind: "import",
        projectId: params.project_id!,
        // The app reads a csv route's body as bytes (the schema documents it as text).
        bytes: body as unknown as Uint8Array,
        format,
        sourceVocabularyId: query.source_vocabulary_id,
        sourceColumn: query.source_column,
        force: query.force === "true",
        actor: actorOf(principal),
      });
      // The worker wrote on its own handle: this one's next read must see it (Stores.resetReads).
      stores.resetReads();
      // Reviewers usually come after an import: have the project's list ready for them (a large change
      // made by the worker is read again a chunk at a time, see mirror.ts).
      stores.mirrors.concept.warm(params.project_id!);
      return streamed(out, JSON_TYPE);
    },
  }),
  defineRoute({
    method: "post",
    path: `${base}/revalidate`,
    summary:
      "Reopen the mapped concept items whose target the server's vocabulary no longer has as valid and standard",
    description:
      'Each such item goes back to review (method review) with the replacement found through "Concept replaced by" / "Maps to" as its target, a `revalidation` note and one audit event. 503 when the server has no vocabulary.',
    tag,
    access: "write",
    body: revalidateBody,
    response: revalidateSummary,
    errors: [401, 403, 404, 413, 422, 503],
    handle: async ({ params, body, principal, stores }) => {
      if (!vocabulary) throw noVocabulary();
      const out = await data.run({
        kind: "revalidate",
        projectId: params.project_id!,
        dryRun: body?.dry_run ?? false,
        actor: actorOf(principal),
      });
      // The worker wrote on its own handle: this one's next read must see it (Stores.resetReads).
      stores.resetReads();
      return streamed(out, JSON_TYPE);
    },
  }),
];
