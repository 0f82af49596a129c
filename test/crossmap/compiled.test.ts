// The built-in crossmaps and standard definitions as the build wrote them (dist/crossmaps.json): the same
// documents the YAML gives, used only while the YAML is unchanged.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadBuiltinCrossmap } from "../../src/crossmap/builtin.js";
import { BUILTIN_DIR, listBuiltinCrossmaps, parseYaml } from "../../src/crossmap/catalog.js";
import { compiledDocument, compiledEntryAt, readCompiled } from "../../src/crossmap/compiled.js";
import { parseCrossmap } from "../../src/crossmap/load.js";
import { loadStandard, StandardDefinitionSchema } from "../../src/crossmap/standards.js";

describe("dist/crossmaps.json", () => {
  it("holds every built-in crossmap as the YAML loader validates it", () => {
    const compiled = readCompiled();
    expect(compiled?.crossmaps.map((c) => c.file)).toEqual(listBuiltinCrossmaps().map((e) => e.file));
    for (const entry of listBuiltinCrossmaps()) {
      const text = readFileSync(entry.path, "utf8");
      expect(compiledDocument(entry.file, text)).toEqual(parseCrossmap(text).document);
    }
  });

  it("is not used for a file edited since the build", () => {
    const text = readFileSync(join(BUILTIN_DIR, "omop_cdm_v5.4-to-fhir_r4.yaml"), "utf8");
    expect(compiledDocument("omop_cdm_v5.4-to-fhir_r4.yaml", `${text}\n# edited\n`)).toBeUndefined();
    expect(compiledDocument("no-such.yaml", text)).toBeUndefined();
  });

  it("is used for a file of the same size and time unread, else only for the same text", () => {
    const file = "omop_cdm_v5.4-to-fhir_r4.yaml";
    const text = readFileSync(join(BUILTIN_DIR, file), "utf8");
    expect(compiledEntryAt(join(BUILTIN_DIR, file))?.file).toBe(file);
    const dir = mkdtempSync(join(tmpdir(), "crossmap-compiled-"));
    try {
      // Same name and text, written now (another time): the SHA-256 decides.
      writeFileSync(join(dir, file), text);
      expect(compiledEntryAt(join(dir, file))?.document).toEqual(parseCrossmap(text).document);
      // Another text of the same size, written at another time than the build saw: not used.
      const edited = text.replace("person: Patient", "person: Pxtient");
      expect(edited.length).toBe(text.length);
      writeFileSync(join(dir, file), edited);
      expect(compiledEntryAt(join(dir, file))).toBeUndefined();
      expect(compiledEntryAt(join(dir, "no-such.yaml"))).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("gives a built-in crossmap that maps as the YAML one does", async () => {
    const path = join(BUILTIN_DIR, "omop_cdm_v5.4-to-fhir_r4.yaml");
    const fromJson = await loadBuiltinCrossmap(path);
    const fromYaml = parseCrossmap(readFileSync(path, "utf8"), { file: path });
    const record = { person_id: 1741351032930224901n, gender_concept_id: 8532, year_of_birth: 1990 };
    expect(fromJson.mapper("person").map(record, 1)).toEqual(fromYaml.mapper("person").map(record, 1));
  });

  it("holds the standard definitions as their YAML says", () => {
    for (const { file, definition } of readCompiled()?.standards ?? []) {
      const yaml = parseYaml(readFileSync(join(BUILTIN_DIR, "standards", file), "utf8"));
      expect(definition).toEqual(StandardDefinitionSchema.parse(yaml));
      expect(loadStandard(definition.standard)).toBe(definition);
    }
    expect(readCompiled()?.standards.length).toBe(4);
  });
});
