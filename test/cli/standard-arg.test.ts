import { describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

describe("crossmap map --from/--to with short names", () => {
  it("maps OMOP to FHIR with --from omop --to fhir", async () => {
    const r = await runCli(["map", "--from", "omop", "--to", "fhir", "--entity", "person"], {
      stdin: '{"person_id":1,"gender_concept_id":8532,"year_of_birth":1980}\n',
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ resourceType: "Patient", id: "1", gender: "female" });
  });

  it("names the ids when a short name matches none", async () => {
    const r = await runCli(["map", "--from", "cda", "--to", "fhir"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no built-in crossmap from cda to fhir_r4 (built-in: ");
  });
});
