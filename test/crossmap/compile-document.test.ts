// Compiling a document the build validated (compile-document.ts): eagerly, any problem means "load the YAML
// instead"; lazily (under the build's options), each entity is compiled when its mapper is first needed.
import { describe, expect, it } from "vitest";
import { compile } from "../../src/crossmap/compile-document.js";
import type { CrossmapDocument } from "../../src/crossmap/schema.js";
import { AppError } from "../../src/errors.js";
import { builtinTransforms } from "../../src/transforms/builtins.js";

// `condition` names a transform no registry has: a document the build would have refused, which shows
// whether that entity was compiled.
const doc = {
  source: "omop_cdm_v5.4",
  target: "fhir_r4",
  entity_map: { person: "Patient", condition: "Condition" },
  field_map: {
    "person.person_id": { target: "Patient.id", transform: "str" },
    "condition.condition_id": { target: "Condition.id", transform: "no_such_transform" },
  },
} as unknown as CrossmapDocument;
const options = { registry: builtinTransforms() };

describe("compile (a document the build validated)", () => {
  it("eagerly, compiles every entity and gives nothing when one has a problem", () => {
    expect(compile(doc, "x.yaml", options)).toBeUndefined();
  });

  it("lazily, compiles an entity when its mapper is first asked for, and only that one", () => {
    const crossmap = compile(doc, "x.yaml", options, true);
    expect(crossmap?.entities()).toEqual(["person", "condition"]);
    expect(crossmap?.targetEntity("condition")).toBe("Condition");
    const person = crossmap?.mapper("person");
    expect(person?.map({ person_id: 7 }, 1)).toEqual({ value: { id: "7" }, issues: [] });
    expect(crossmap?.mapper("person")).toBe(person);
    let thrown: unknown;
    try {
      crossmap?.mapper("condition");
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe("invalid_crossmap");
    expect((thrown as AppError).problems?.map((p) => p.code)).toEqual(["unknown_transform"]);
  });
});
