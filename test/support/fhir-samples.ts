// Test support: the resources of the six Synthea FHIR R4 transaction Bundles in test/fixtures/fhir/synthea.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES_DIR } from "./omop.js";

export interface SampleResource extends Record<string, unknown> {
  resourceType: string;
  id: string;
}

export interface SampleBundle {
  file: string;
  resources: SampleResource[];
}

let cache: SampleBundle[] | undefined;

export function sampleBundles(): SampleBundle[] {
  if (cache) return cache;
  const dir = join(FIXTURES_DIR, "fhir", "synthea");
  cache = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => {
      const bundle = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
        entry: { resource: SampleResource }[];
      };
      return { file, resources: bundle.entry.map((e) => e.resource) };
    });
  return cache;
}

/** Every sample resource of one type, across all bundles. */
export function sampleResources(type: string): SampleResource[] {
  return sampleBundles().flatMap((b) => b.resources.filter((r) => r.resourceType === type));
}
