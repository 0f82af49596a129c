// The yardstick for the built-in OMOP -> FHIR crossmap: OMOP person / measurement NDJSON rows turned into the same
// FHIR Patient / Observation resources (no vocabulary) by hand-written code, then serialised. What the mapping
// would cost if it were written as a program for exactly these two tables and these rows (map-throughput checks
// that both write the same resources).
//   node bench/omop-fhir-handwritten.mjs person|measurement INPUT OUTPUT
import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { createInterface } from "node:readline";

const [table, input, output] = process.argv.slice(2);
const OHDSI = "https://fhir-terminology.ohdsi.org";
const SD = "https://crossmap.dev/fhir/StructureDefinition/";
const NS = "https://crossmap.dev/fhir/NamingSystem/";
const GENDER = { 8507: "male", 8532: "female", 8551: "unknown", 8570: "other" };
const OMB = "urn:oid:2.16.840.1.113883.6.238";
const RACE = {
  8527: ["2106-3", "White"],
  8516: ["2054-5", "Black or African American"],
  8515: ["2028-9", "Asian"],
  8657: ["1002-5", "American Indian or Alaska Native"],
  8557: ["2076-8", "Native Hawaiian or Other Pacific Islander"],
};
const ETHNICITY = {
  38003563: ["2135-2", "Hispanic or Latino"],
  38003564: ["2186-5", "Not Hispanic or Latino"],
};

const present = (v) => v !== undefined && v !== null && v !== "";
const dateTime = (v) =>
  `${String(v).slice(0, 10)}T${String(v).length > 10 ? String(v).slice(11, 19) : "00:00:00"}Z`;
const ohdsi = (id) => ({ system: OHDSI, code: String(id) });

/** OMOP concept + source value + source concept as a CodeableConcept, as omop_codeable_concept writes it without a vocabulary. */
function concept(id, sourceValue, sourceConcept) {
  const cc = {};
  if (present(sourceConcept) && Number(sourceConcept) !== 0) {
    cc.extension = [{ url: `${SD}omop-source-concept`, valueCoding: ohdsi(sourceConcept) }];
  }
  const coding = [];
  if (present(id) && Number(id) !== 0) coding.push(ohdsi(id));
  let text;
  if (present(sourceValue)) {
    const s = String(sourceValue).trim();
    if (/\s/.test(s) || s === "") text = String(sourceValue);
    else coding.push({ code: s, userSelected: true });
  }
  if (coding.length > 0) cc.coding = coding;
  if (text !== undefined) cc.text = text;
  return cc.coding || cc.text || cc.extension ? cc : undefined;
}

const usCore = (kind, [code, display]) => ({
  url: `http://hl7.org/fhir/us/core/StructureDefinition/us-core-${kind}`,
  extension: [
    { url: "ombCategory", valueCoding: { system: OMB, code, display } },
    { url: "text", valueString: display },
  ],
});

function patient(r) {
  const id = String(r.person_id);
  const out = { resourceType: "Patient", id, identifier: [{ value: id, system: `${NS}omop-person-id` }] };
  if (present(r.person_source_value)) {
    out.identifier.push({ value: String(r.person_source_value), system: `${NS}omop-person-source-value` });
  }
  const extension = [];
  if (GENDER[r.gender_concept_id]) out.gender = GENDER[r.gender_concept_id];
  const g = concept(r.gender_concept_id, r.gender_source_value, r.gender_source_concept_id);
  if (g) extension.push({ url: `${SD}omop-gender`, valueCodeableConcept: g });
  if (RACE[r.race_concept_id]) extension.push(usCore("race", RACE[r.race_concept_id]));
  const race = concept(r.race_concept_id, r.race_source_value, r.race_source_concept_id);
  if (race) extension.push({ url: `${SD}omop-race`, valueCodeableConcept: race });
  if (ETHNICITY[r.ethnicity_concept_id])
    extension.push(usCore("ethnicity", ETHNICITY[r.ethnicity_concept_id]));
  const eth = concept(r.ethnicity_concept_id, r.ethnicity_source_value, r.ethnicity_source_concept_id);
  if (eth) extension.push({ url: `${SD}omop-ethnicity`, valueCodeableConcept: eth });
  if (present(r.location_id)) {
    extension.push({ url: `${SD}omop-location`, valueReference: { reference: `Location/${r.location_id}` } });
  }
  if (extension.length > 0) out.extension = extension;
  if (present(r.birth_datetime)) {
    out.birthDate = String(r.birth_datetime).slice(0, 10);
    out._birthDate = {
      extension: [
        {
          url: "http://hl7.org/fhir/StructureDefinition/patient-birthTime",
          valueDateTime: dateTime(r.birth_datetime),
        },
      ],
    };
  }
  return out;
}

function observation(r) {
  const out = { resourceType: "Observation", status: "final", id: `measurement-${r.measurement_id}` };
  const extension = [];
  if (present(r.measurement_type_concept_id) && r.measurement_type_concept_id !== 0) {
    extension.push({ url: `${SD}omop-type-concept`, valueCoding: ohdsi(r.measurement_type_concept_id) });
  }
  if (present(r.visit_detail_id)) {
    extension.push({
      url: `${SD}omop-visit-detail`,
      valueReference: { reference: `Encounter/visit-detail-${r.visit_detail_id}` },
    });
  }
  if (present(r.value_source_value)) {
    extension.push({ url: `${SD}omop-value-source-value`, valueString: String(r.value_source_value) });
  }
  if (present(r.measurement_time)) {
    extension.push({ url: `${SD}omop-measurement-time`, valueString: String(r.measurement_time) });
  }
  if (extension.length > 0) out.extension = extension;
  const code = concept(r.measurement_concept_id, r.measurement_source_value, r.measurement_source_concept_id);
  if (code) out.code = code;
  out.subject = { reference: `Patient/${r.person_id}` };
  if (present(r.visit_occurrence_id)) out.encounter = { reference: `Encounter/${r.visit_occurrence_id}` };
  if (present(r.measurement_datetime ?? r.measurement_date)) {
    out.effectiveDateTime = dateTime(r.measurement_datetime ?? r.measurement_date);
  }
  if (present(r.provider_id)) out.performer = [{ reference: `Practitioner/${r.provider_id}` }];
  if (present(r.value_as_number)) {
    const q = {};
    if (present(r.unit_concept_id) && r.unit_concept_id !== 0) {
      q.extension = [{ url: `${SD}omop-concept`, valueCoding: ohdsi(r.unit_concept_id) }];
    }
    q.value = Number(r.value_as_number);
    if (present(r.unit_source_value)) q.unit = String(r.unit_source_value);
    if (present(r.unit_concept_id) && r.unit_concept_id !== 0 && present(r.unit_source_value)) {
      q.system = "http://unitsofmeasure.org";
      q.code = String(r.unit_source_value).trim();
    }
    out.valueQuantity = q;
  }
  return out;
}

const build = table === "person" ? patient : observation;
const out = createWriteStream(output);
const lines = createInterface({ input: createReadStream(input), crlfDelay: Number.POSITIVE_INFINITY });
let buffer = "";
for await (const line of lines) {
  if (line.length === 0) continue;
  // person_id beyond 2^53 stays exact, as the crossmap keeps it: quoted before JSON.parse rounds it.
  const exact = line.replace(/"person_id":(\d{16,})/, '"person_id":"$1"');
  buffer += `${JSON.stringify(build(JSON.parse(exact)))}\n`;
  if (buffer.length >= 1 << 16) {
    if (!out.write(buffer)) await once(out, "drain");
    buffer = "";
  }
}
out.end(buffer);
await once(out, "close");
