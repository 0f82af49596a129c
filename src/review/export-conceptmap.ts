// A project's concept decisions as a FHIR R4 ConceptMap: one group per source/target code system, one
// element per source code, with the equivalence and the reviewer's comment. Mapped items (auto, manual,
// override) map to their concept; rejected ones (unmapped) are `unmatched`.
import type { ConceptItem, Project } from "../store/types.js";
import type { VocabularyBridge } from "../vocab/bridge.js";
import { fhirSystemFor, OMOP_CONCEPT_ID_SYSTEM } from "../vocab/systems.js";
import { MAPPED_METHODS } from "./listing.js";

interface Target {
  code?: string;
  display?: string;
  equivalence: string;
  comment?: string;
}

interface Element {
  code: string;
  display?: string;
  target: Target[];
}

interface Group {
  source?: string;
  target?: string;
  element: Element[];
}

export interface ConceptMapOptions {
  /** Gives each target concept its own system and code; without it the concept id is the code. */
  vocabulary?: VocabularyBridge | undefined;
  /** dateTime of the export (tests fix it). */
  now?: Date;
}

/**
 * The system URI of a source vocabulary: a vocabulary the FHIR table knows by its canonical URI, a URI
 * as it is, and a site's own name (LOCAL_LAB) as a URN of this tool, so that it is never passed off as
 * a system it does not belong to.
 */
export function sourceSystemUri(vocabularyId: string): string {
  const known = fhirSystemFor(vocabularyId);
  if (known) return known;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(vocabularyId)) return vocabularyId;
  return `urn:crossmap:vocabulary:${encodeURIComponent(vocabularyId)}`;
}

/** A FHIR `name` (an identifier: a capital, then letters, digits or underscores) from a project name. */
function fhirName(projectName: string): string {
  const words =
    projectName
      .normalize("NFD")
      .replace(/\p{M}/gu, "")
      .match(/[A-Za-z0-9]+/g) ?? [];
  const joined = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
  return /^[A-Z]/.test(joined) ? joined.slice(0, 255) : `Project${joined}`.slice(0, 255);
}

export function conceptMap(
  project: Project,
  items: readonly ConceptItem[],
  options: ConceptMapOptions = {},
): Record<string, unknown> {
  const groups = new Map<string, Group>();
  const vocab = options.vocabulary;
  for (const item of items) {
    const mapped = MAPPED_METHODS.has(item.method) && item.target_concept_id !== null;
    if (!mapped && item.method !== "unmapped") continue;
    const source = item.source_vocabulary_id ? sourceSystemUri(item.source_vocabulary_id) : undefined;
    let targetSystem: string | undefined;
    let target: Target;
    if (mapped) {
      const id = item.target_concept_id as number;
      const concept = vocab?.getConcept(id);
      const system = concept ? fhirSystemFor(concept.vocabulary_id) : undefined;
      const display = concept?.concept_name ?? item.target_concept_name ?? undefined;
      targetSystem = system ?? OMOP_CONCEPT_ID_SYSTEM;
      target = {
        code: system && concept ? concept.concept_code : String(id),
        ...(display ? { display } : {}),
        equivalence: item.equivalence ?? "equivalent",
      };
    } else {
      target = { equivalence: "unmatched" };
    }
    const comment = item.comment ?? undefined;
    // R4 (cmd-1): a narrower or inexact map SHALL carry a comment.
    const needed =
      target.equivalence === "narrower" || target.equivalence === "inexact"
        ? `Reviewed as ${target.equivalence}; no reviewer comment was recorded.`
        : undefined;
    if (comment || needed) target.comment = comment || needed;
    const key = `${source ?? ""} ${targetSystem ?? ""}`;
    let group = groups.get(key);
    if (!group) {
      group = {
        ...(source ? { source } : {}),
        ...(targetSystem ? { target: targetSystem } : {}),
        element: [],
      };
      groups.set(key, group);
    }
    group.element.push({
      code: item.source_code,
      ...(item.source_description ? { display: item.source_description } : {}),
      target: [target],
    });
  }
  return {
    resourceType: "ConceptMap",
    id: project.id,
    url: `urn:uuid:${project.id}`,
    name: fhirName(project.name),
    title: project.name,
    status: "active",
    date: (options.now ?? new Date()).toISOString(),
    description: `Reviewed concept mappings of the crossmap project "${project.name}".`,
    ...(groups.size > 0 ? { group: [...groups.values()] } : {}),
  };
}
