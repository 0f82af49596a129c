// The sample vocabulary shipped in vocab/, built into an index on first use so the demo needs no download
// and no setup. Rebuilt when the shipped files are newer than the index, or the index layout changed.
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildVocabulary } from "./build.js";
import { DATA_FILE, LAYOUT_VERSION } from "./layout.js";
import { indexLayout } from "./lmdb-bridge.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
export const SAMPLE_VOCABULARY_SOURCE = join(root, "vocab");
export const SAMPLE_VOCABULARY_INDEX = join(root, ".cache", "vocab-sample");

const mtime = (path: string): number => (existsSync(path) ? statSync(path).mtimeMs : 0);

/** Path of the sample index, building it first when it is missing or older than vocab/. */
export async function ensureSampleVocabulary(): Promise<{ dir: string; built: boolean }> {
  const dir = SAMPLE_VOCABULARY_INDEX;
  const built = mtime(join(dir, DATA_FILE));
  const sources = ["CONCEPT.csv", "CONCEPT_RELATIONSHIP.csv", "VOCABULARY.csv"].map((f) =>
    mtime(join(SAMPLE_VOCABULARY_SOURCE, f)),
  );
  // An index left by an older release has another layout: rebuilt, not refused.
  if (built > 0 && sources.every((m) => m <= built) && indexLayout(dir) === LAYOUT_VERSION) {
    return { dir, built: false };
  }
  await buildVocabulary({ sourceDir: SAMPLE_VOCABULARY_SOURCE, outDir: dir });
  return { dir, built: true };
}
