// A data directory with one project of N reviewed concept decisions for map-throughput's --project
// cases: the generated conditions' SNOMED codes mapped to their concepts, plus filler codes up to N.
import { existsSync } from "node:fs";
import { openStores } from "../src/store/env.js";
import { CONDITIONS } from "./generate.js";

export async function projectDecisionsDataDir(
  dataDir: string,
  count: number,
): Promise<{ dataDir: string; projectId: string }> {
  const marker = `bench decisions ${count}`;
  const stores = openStores(dataDir, { durability: "commit" });
  try {
    const existing = existsSync(dataDir) ? stores.projects.list().find((p) => p.name === marker) : undefined;
    if (existing) return { dataDir, projectId: existing.id };
    const project = await stores.write(() => stores.projects.create({ name: marker }));
    const now = new Date().toISOString();
    await stores.write(() => {
      for (let i = 0; i < count; i++) {
        const [concept, code] = CONDITIONS[i] ?? [40_000_000 + i, `F${i}`];
        stores.conceptItems.put(project.id, {
          id: `d${String(i).padStart(6, "0")}`,
          version: 1,
          created_at: now,
          updated_at: now,
          reviewed_at: now,
          source_column: null,
          source_code: code,
          source_vocabulary_id: "SNOMED",
          source_description: null,
          target_concept_id: concept,
          target_concept_name: null,
          target_vocabulary_id: "SNOMED",
          confidence: 1,
          method: "auto",
        });
      }
    });
    return { dataDir, projectId: project.id };
  } finally {
    await stores.close();
  }
}
