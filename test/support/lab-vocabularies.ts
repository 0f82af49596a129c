// Two small vocabulary releases built by the tests that need a release change: the LOINC lab concepts
// a site's local lab codes map to, where the newer release deprecates serum glucose (3004501, "U")
// with a "Concept replaced by" to another glucose concept. Concept ids, codes and names are OMOP's.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildVocabulary } from "../../src/vocab/build.js";
import { type LmdbVocabularyBridge, openVocabulary } from "../../src/vocab/lmdb-bridge.js";
import { CONCEPT_HEADER, REL_HEADER } from "../vocab/fixtures.js";

export const LAB = {
  glucose: 3004501,
  glucoseBlood: 3000483,
  sodium: 3019550,
  potassium: 3023103,
  potassiumBlood: 3005456,
  hemoglobin: 3000963,
  cholesterol: 3027114,
} as const;

const concept = (id: number, name: string, code: string, standard = "S", end = "20991231", invalid = "") => [
  String(id),
  name,
  "Measurement",
  "LOINC",
  "Lab Test",
  standard,
  code,
  "19700101",
  end,
  invalid,
];

const CONCEPTS = [
  concept(LAB.glucose, "Glucose [Mass/volume] in Serum or Plasma", "2345-7"),
  concept(LAB.glucoseBlood, "Glucose [Mass/volume] in Blood", "2339-0"),
  concept(LAB.sodium, "Sodium [Moles/volume] in Serum or Plasma", "2951-2"),
  concept(LAB.potassium, "Potassium [Moles/volume] in Serum or Plasma", "2823-3"),
  concept(LAB.potassiumBlood, "Potassium [Moles/volume] in Blood", "6298-4"),
  concept(LAB.hemoglobin, "Hemoglobin [Mass/volume] in Blood", "718-7"),
  concept(LAB.cholesterol, "Cholesterol [Mass/volume] in Serum or Plasma", "2093-3"),
];

const self = (id: number) => [String(id), String(id), "Maps to", "19700101", "20991231", ""];

export const OLD_RELEASE = "v5.0 28-FEB-24";
export const NEW_RELEASE = "v5.0 31-AUG-24";

function write(dir: string, concepts: string[][], rels: string[][], release: string): void {
  const tsv = (rows: string[][]) => `${rows.map((r) => r.join("\t")).join("\n")}\n`;
  writeFileSync(join(dir, "CONCEPT.csv"), tsv([CONCEPT_HEADER, ...concepts]));
  writeFileSync(join(dir, "CONCEPT_RELATIONSHIP.csv"), tsv([REL_HEADER, ...rels]));
  writeFileSync(
    join(dir, "VOCABULARY.csv"),
    tsv([
      [
        "vocabulary_id",
        "vocabulary_name",
        "vocabulary_reference",
        "vocabulary_version",
        "vocabulary_concept_id",
      ],
      ["None", "OMOP Standardized Vocabularies", "OMOP generated", release, "44819096"],
      [
        "LOINC",
        "Logical Observation Identifiers Names and Codes (Regenstrief Institute)",
        "http://loinc.org",
        "LOINC 2.76",
        "44819102",
      ],
    ]),
  );
}

/** Builds both releases under `dir` (old/, new/ sources; old-index/, new-index/ indexes) and opens them. */
export async function buildLabVocabularies(
  dir: string,
): Promise<{ old: LmdbVocabularyBridge; next: LmdbVocabularyBridge; oldIndex: string; newIndex: string }> {
  const { mkdirSync } = await import("node:fs");
  for (const d of ["old", "new"]) mkdirSync(join(dir, d), { recursive: true });
  write(
    dir + "/old",
    CONCEPTS,
    CONCEPTS.map((c) => self(Number(c[0]))),
    OLD_RELEASE,
  );
  // The new release: serum glucose is upgraded away (non-standard, invalid "U") and replaced.
  const newConcepts = CONCEPTS.map((c) =>
    Number(c[0]) === LAB.glucose
      ? concept(LAB.glucose, "Glucose [Mass/volume] in Serum or Plasma", "2345-7", "", "20240630", "U")
      : c,
  );
  const newRels = [
    ...CONCEPTS.filter((c) => Number(c[0]) !== LAB.glucose).map((c) => self(Number(c[0]))),
    [String(LAB.glucose), String(LAB.glucoseBlood), "Concept replaced by", "20240701", "20991231", ""],
    [String(LAB.glucose), String(LAB.glucose), "Maps to", "19700101", "20240630", "D"],
  ];
  write(dir + "/new", newConcepts, newRels, NEW_RELEASE);
  const oldIndex = join(dir, "old-index");
  const newIndex = join(dir, "new-index");
  await buildVocabulary({ sourceDir: join(dir, "old"), outDir: oldIndex });
  await buildVocabulary({ sourceDir: join(dir, "new"), outDir: newIndex });
  return { old: openVocabulary(oldIndex), next: openVocabulary(newIndex), oldIndex, newIndex };
}
