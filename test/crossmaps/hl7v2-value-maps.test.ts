// The HL7 table value maps of the built-in HL7 v2 -> FHIR crossmap say what the v2-to-FHIR IG's ConceptMaps
// say (test/fixtures/hl7v2/v2-to-fhir-ig/codesystems), plus the listed extras: regenerate them with
// `node scripts/gen-hl7v2-value-maps.mjs` rather than editing them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
// @ts-expect-error: a plain ES module shared with the generator script
import { MAPS, readConceptMap } from "../../scripts/hl7v2-value-maps.mjs";
import { BUILTIN_DIR } from "../../src/crossmap/catalog.js";
import { FIXTURES_DIR } from "../support/omop.js";

interface MapSpec {
  name: string;
  csv: string;
  shape: string;
  default?: unknown;
}

const doc = parse(readFileSync(join(BUILTIN_DIR, "hl7v2_2.5.1-to-fhir_r4.yaml"), "utf8")) as {
  transforms: Record<string, { mapping?: unknown; default?: unknown; identifier_types?: unknown }>;
};
const IG = join(FIXTURES_DIR, "hl7v2", "v2-to-fhir-ig");

describe("the HL7 table value maps of the built-in crossmap", () => {
  it.each((MAPS as MapSpec[]).map((m) => [m.name, m] as const))("%s is the IG's ConceptMap", (_, m) => {
    const t = doc.transforms[m.name];
    const expected = readConceptMap(IG, m) as { mapping?: unknown; identifierTypes?: unknown };
    if (m.shape === "identifier") expect(t?.identifier_types).toEqual(expected.identifierTypes);
    else {
      expect(t?.mapping).toEqual(expected.mapping);
      expect(t?.default).toEqual(m.default);
    }
  });

  it("reads the CSVs as the IG writes them: quoted commas, unmapped codes left out", () => {
    const sex = readConceptMap(IG, { csv: "AdministrativeSex", shape: "code" }) as { mapping: object };
    expect(sex.mapping).toEqual({ F: "female", M: "male", O: "other", U: "unknown", A: "other", N: "other" });
    const status = readConceptMap(IG, { csv: "ResultStatus[Non-Queries]", shape: "code" }) as {
      mapping: Record<string, string>;
    };
    expect(status.mapping).toMatchObject({ I: "registered", C: "corrected", F: "final" });
    expect(status.mapping.Y).toBeUndefined();
  });
});
