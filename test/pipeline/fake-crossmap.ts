// A hand-written stand-in for a compiled crossmap (OMOP person -> FHIR Patient), so the pipeline's own
// behaviour can be tested without the engine. It follows the RecordMapper contract: never throws.
import type { MappingIssue, RecordMapper, SourceRecord, TargetRecord } from "../../src/crossmap/types.js";
import type { CrossmapLike } from "../../src/pipeline/plan.js";

const GENDER: Record<string, string> = {
  "8507": "male",
  "8532": "female",
  "8551": "other",
  "8570": "unknown",
};

export function personToPatient(source = "omop_cdm_v5.4", target = "fhir_r4"): RecordMapper {
  return {
    source,
    target,
    sourceEntity: "person",
    targetEntity: "Patient",
    map(record: SourceRecord, position) {
      const value: TargetRecord = { resourceType: "Patient" };
      const issues: MappingIssue[] = [];
      if (record.person_id !== undefined) value.id = String(record.person_id);
      const g = record.gender_concept_id;
      if (g !== undefined) {
        const gender = GENDER[String(g)];
        if (gender) value.gender = gender;
        else
          issues.push({
            record: position,
            field: "person.gender_concept_id",
            target: "Patient.gender",
            code: "unmapped_value",
            severity: "error",
            message: `no value_map entry for ${JSON.stringify(g)}`,
            value: g,
          });
      }
      if (typeof record.birth_datetime === "string") value.birthDate = record.birth_datetime.slice(0, 10);
      return { value, issues };
    },
  };
}

/** FHIR Patient -> openEHR-ish demographic record, to test --via chaining. */
export function patientToParty(): RecordMapper {
  return {
    source: "fhir_r4",
    target: "openehr_1.0.4",
    sourceEntity: "Patient",
    targetEntity: "PERSON",
    map(record) {
      return { value: { _type: "PERSON", uid: record.id, sex: record.gender }, issues: [] };
    },
  };
}

export function crossmapOf(source: string, target: string, mappers: RecordMapper[]): CrossmapLike {
  const byEntity = new Map(mappers.map((m) => [m.sourceEntity, m]));
  return {
    source,
    target,
    entities: () => [...byEntity.keys()],
    targetEntity: (e) => byEntity.get(e)?.targetEntity,
    mapper: (e) => {
      const m = byEntity.get(e);
      if (!m) throw new Error(`no entity ${e}`);
      return m;
    },
  };
}
