// What the OMOP <-> FHIR concept transforms share: how a source value becomes a FHIR code (or stays text),
// how a concept is rendered from the vocabulary, and how FHIR elements that carry codes are read back.
import type { Concept, VocabularyBridge } from "../vocab/bridge.js";
import { fhirSystemFor } from "../vocab/systems.js";
import { toInteger } from "./casts.js";

export interface Coding {
  system?: string;
  code: string;
  display?: string;
  userSelected?: boolean;
}

export interface Extension {
  url: string;
  [value: string]: unknown;
}

/** A FHIR CodeableConcept as the transforms write it. */
export interface CodeableConcept {
  extension?: Extension[];
  coding?: Coding[];
  text?: string;
}

const WHITESPACE = /\s/;

/**
 * A source value as FHIR `code` (no leading or trailing whitespace), or undefined when it is free text: a
 * value with whitespace inside is a phrase ("Sodium Chloride 0.9%  Flush Syringe"), which FHIR keeps in
 * CodeableConcept.text. Source codes (ICD, SNOMED, LOINC, NDC, RxNorm, local codes) never contain spaces.
 */
export function asCode(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === "" || WHITESPACE.test(trimmed)) return undefined;
  return trimmed;
}

export const conceptName = (c: Concept): string | undefined =>
  c.concept_name === "" || c.concept_name === "NA" ? undefined : c.concept_name;

/** The concept's own coding (its vocabulary's system, its code and name), when the system is known. */
export function vocabularyCoding(c: Concept): Coding | undefined {
  const system = fhirSystemFor(c.vocabulary_id);
  if (!system) return undefined;
  const display = conceptName(c);
  return display === undefined ? { system, code: c.concept_code } : { system, code: c.concept_code, display };
}

/** A concept id as a positive-or-negative integer that fits OMOP's concept_id column, else undefined. */
export function conceptId(v: unknown): number | undefined {
  const n = toInteger(v);
  return typeof n === "number" ? n : undefined;
}

/** The OHDSI coding of a concept id, named from the vocabulary when it knows the concept. */
export function conceptCoding(
  system: string,
  id: number,
  vocabulary: VocabularyBridge | undefined,
): { coding: Coding; concept: Concept | undefined } {
  const concept = vocabulary?.getConcept(id);
  const display = concept ? conceptName(concept) : undefined;
  const coding: Coding =
    display === undefined ? { system, code: String(id) } : { system, code: String(id), display };
  return { coding, concept };
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object";

/** The extensions of an element (an empty list for anything else). */
export function extensionsOf(element: unknown): Extension[] {
  if (!isObject(element) || !Array.isArray(element.extension)) return [];
  return element.extension.filter((e): e is Extension => isObject(e) && typeof e.url === "string");
}

/** The first extension with this url in a list of extensions. */
export function findExtension(list: unknown, url: string): Extension | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.find((e): e is Extension => isObject(e) && e.url === url);
}

/** The value[x] of an extension, whatever its type, and the type's name ("Coding", "string", ...). */
export function extensionValue(ext: Extension): { type: string; value: unknown } | undefined {
  for (const key of Object.keys(ext)) {
    if (key.startsWith("value") && key.length > 5) return { type: key.slice(5), value: ext[key] };
  }
  return undefined;
}
