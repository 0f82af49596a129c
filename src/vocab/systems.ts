// The one table of OMOP vocabulary_id -> FHIR code system URI and openEHR terminology id, and its reverse.
// Every other module asks here; no URI is spelled anywhere else in the code.

export interface VocabularySystem {
  vocabularyId: string;
  /** Canonical FHIR R4 code system URI (HL7 Terminology / FHIR R4 "External Code Systems"). */
  fhirSystem: string;
  /** openEHR TERMINOLOGY_ID value. */
  openehrTerminology: string;
  /** Other URIs seen in the wild for the same code system, accepted by the reverse lookup only. */
  aliases?: string[];
  /** HL7 v2 coding system names (table 0396), accepted by the reverse lookup only. */
  hl7v2?: string[];
}

// OMOP's own vocabularies (Gender, Race, Ethnicity, Visit, Type Concept) have no HL7-registered code system;
// they are published under the OHDSI namespace so that a coding stays self-describing and round-trips.
const OHDSI = "https://fhir-terminology.ohdsi.org/CodeSystem/";

/**
 * Where a bare OMOP concept id is a code: the OHDSI terminology server's base URI (the built-in OMOP ->
 * FHIR crossmap's fallback_system too), used when no vocabulary says the concept's own system.
 */
export const OMOP_CONCEPT_ID_SYSTEM = "https://fhir-terminology.ohdsi.org";

export const VOCABULARY_SYSTEMS: readonly VocabularySystem[] = [
  {
    vocabularyId: "SNOMED",
    fhirSystem: "http://snomed.info/sct",
    openehrTerminology: "SNOMED-CT",
    aliases: ["urn:oid:2.16.840.1.113883.6.96"],
    hl7v2: ["SCT"],
  },
  {
    vocabularyId: "LOINC",
    fhirSystem: "http://loinc.org",
    openehrTerminology: "LOINC",
    aliases: ["urn:oid:2.16.840.1.113883.6.1"],
    hl7v2: ["LN"],
  },
  {
    vocabularyId: "RxNorm",
    fhirSystem: "http://www.nlm.nih.gov/research/umls/rxnorm",
    openehrTerminology: "RxNorm",
    aliases: ["urn:oid:2.16.840.1.113883.6.88"],
    hl7v2: ["RXNORM"],
  },
  {
    vocabularyId: "ICD10CM",
    fhirSystem: "http://hl7.org/fhir/sid/icd-10-cm",
    openehrTerminology: "ICD-10-CM",
    aliases: ["urn:oid:2.16.840.1.113883.6.90"],
    hl7v2: ["I10C"],
  },
  {
    vocabularyId: "ICD9CM",
    fhirSystem: "http://hl7.org/fhir/sid/icd-9-cm",
    openehrTerminology: "ICD-9-CM",
    aliases: ["urn:oid:2.16.840.1.113883.6.103"],
    hl7v2: ["I9C"],
  },
  {
    vocabularyId: "ICD10PCS",
    fhirSystem: "http://www.cms.gov/Medicare/Coding/ICD10",
    openehrTerminology: "ICD-10-PCS",
    aliases: ["urn:oid:2.16.840.1.113883.6.4"],
    hl7v2: ["I10P"],
  },
  {
    vocabularyId: "CPT4",
    fhirSystem: "http://www.ama-assn.org/go/cpt",
    openehrTerminology: "CPT",
    aliases: ["urn:oid:2.16.840.1.113883.6.12"],
    hl7v2: ["C4"],
  },
  {
    vocabularyId: "HCPCS",
    fhirSystem: "http://www.cms.gov/Medicare/Coding/HCPCSReleaseCodeSets",
    openehrTerminology: "HCPCS",
    aliases: ["urn:oid:2.16.840.1.113883.6.285"],
    hl7v2: ["HCPCS"],
  },
  {
    vocabularyId: "NDC",
    fhirSystem: "http://hl7.org/fhir/sid/ndc",
    openehrTerminology: "NDC",
    aliases: ["urn:oid:2.16.840.1.113883.6.69"],
    hl7v2: ["NDC"],
  },
  {
    vocabularyId: "CVX",
    fhirSystem: "http://hl7.org/fhir/sid/cvx",
    openehrTerminology: "CVX",
    aliases: ["urn:oid:2.16.840.1.113883.12.292"],
    hl7v2: ["CVX"],
  },
  {
    vocabularyId: "ATC",
    fhirSystem: "http://www.whocc.no/atc",
    openehrTerminology: "ATC",
    aliases: ["urn:oid:2.16.840.1.113883.6.73"],
  },
  {
    vocabularyId: "UCUM",
    fhirSystem: "http://unitsofmeasure.org",
    openehrTerminology: "UCUM",
    aliases: ["urn:oid:2.16.840.1.113883.6.8"],
    hl7v2: ["UCUM"],
  },
  { vocabularyId: "Gender", fhirSystem: `${OHDSI}omop-gender`, openehrTerminology: "OMOP-Gender" },
  { vocabularyId: "Race", fhirSystem: `${OHDSI}omop-race`, openehrTerminology: "OMOP-Race" },
  { vocabularyId: "Ethnicity", fhirSystem: `${OHDSI}omop-ethnicity`, openehrTerminology: "OMOP-Ethnicity" },
  { vocabularyId: "Visit", fhirSystem: `${OHDSI}omop-visit`, openehrTerminology: "OMOP-Visit" },
  {
    vocabularyId: "Type Concept",
    fhirSystem: `${OHDSI}omop-type-concept`,
    openehrTerminology: "OMOP-Type-Concept",
  },
];

const byVocabulary = new Map(VOCABULARY_SYSTEMS.map((s) => [s.vocabularyId, s]));
const bySystem = new Map<string, string>();
for (const s of VOCABULARY_SYSTEMS) {
  bySystem.set(s.fhirSystem, s.vocabularyId);
  for (const alias of s.aliases ?? []) bySystem.set(alias, s.vocabularyId);
  for (const name of s.hl7v2 ?? []) bySystem.set(name, s.vocabularyId);
}

/** The FHIR system URI of an OMOP vocabulary, or undefined when the table does not know it. */
export function fhirSystemFor(vocabularyId: string): string | undefined {
  return byVocabulary.get(vocabularyId)?.fhirSystem;
}

/** The openEHR terminology id; vocabularies outside the table keep their OMOP vocabulary_id. */
export function openehrTerminologyFor(vocabularyId: string): string {
  return byVocabulary.get(vocabularyId)?.openehrTerminology ?? vocabularyId;
}

/**
 * The OMOP vocabulary_id for a FHIR system URI, an HL7 v2 coding system name, an openEHR terminology id,
 * or a vocabulary_id of the table itself (case-sensitive, as FHIR requires; a trailing slash is tolerated
 * because hand-written bundles often carry one).
 */
export function vocabularyForSystem(system: string): string | undefined {
  const exact = bySystem.get(system) ?? bySystem.get(system.replace(/\/$/, ""));
  if (exact) return exact;
  for (const s of VOCABULARY_SYSTEMS) {
    if (s.openehrTerminology === system || s.vocabularyId === system) return s.vocabularyId;
  }
  return undefined;
}
