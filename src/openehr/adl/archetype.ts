// An ADL 1.4 archetype file (as the openEHR CKM publishes them): its id, original language, definition and
// ontology (term definitions per language, term bindings, constraint definitions).
import type { ArchetypeTerm, CComplexObject, TermBinding } from "../am/model.js";
import { parseDefinition } from "./cadl.js";
import { CodeTerm, type OdinObject, type OdinValue, parseOdin } from "./odin.js";
import { AdlSyntaxError } from "./scanner.js";

export interface Archetype {
  archetypeId: string;
  /** The parent of a specialised archetype. */
  parentId?: string;
  originalLanguage: string;
  definition: CComplexObject;
  /** language -> code -> term (at-codes and ac-codes). */
  terms: Map<string, Map<string, ArchetypeTerm>>;
  termBindings: TermBinding[];
  /** The `description` section: copyright, licence, purpose (in the original language), authors. */
  copyright?: string;
  licence?: string;
  purpose?: string;
}

const SECTIONS = [
  "archetype",
  "specialise",
  "specialize",
  "concept",
  "language",
  "description",
  "definition",
  "invariant",
  "ontology",
  "annotations",
];

/** Parses an ADL 1.4 file's text; `file` names it in errors. */
export function parseArchetype(text: string, file = "archetype.adl"): Archetype {
  try {
    return parse(text.replace(/^\uFEFF/, ""));
  } catch (e) {
    if (e instanceof AdlSyntaxError) throw new Error(`${file}:${e.message}`);
    throw e;
  }
}

function parse(text: string): Archetype {
  const lines = text.split(/\r?\n/);
  const sections = new Map<string, { body: string; line: number; head: string }>();
  let current: { name: string; start: number; head: string } | undefined;
  const close = (end: number): void => {
    if (!current) return;
    sections.set(current.name, {
      body: lines.slice(current.start, end).join("\n"),
      line: current.start + 1,
      head: current.head,
    });
  };
  lines.forEach((line, i) => {
    const word = /^([a-z_]+)\b(.*)$/.exec(line);
    if (word && SECTIONS.includes(word[1] as string)) {
      close(i);
      current = { name: word[1] as string, start: i + 1, head: word[2] as string };
    }
  });
  close(lines.length);
  const header = sections.get("archetype");
  const archetypeId = header?.body.trim().split(/\s+/)[0];
  if (!archetypeId) throw new AdlSyntaxError("no archetype id after `archetype`", 1);
  const parent = sections.get("specialise") ?? sections.get("specialize");
  const language = parseOdin(sections.get("language")?.body ?? "", sections.get("language")?.line);
  const original = language.original_language;
  const definitionSection = sections.get("definition");
  if (!definitionSection) throw new AdlSyntaxError("no definition section", 1);
  const definition = parseDefinition(definitionSection.body, definitionSection.line);
  const ontologySection = sections.get("ontology");
  const ontology = ontologySection ? parseOdin(ontologySection.body, ontologySection.line) : {};
  const terms = new Map<string, Map<string, ArchetypeTerm>>();
  for (const key of ["term_definitions", "constraint_definitions"]) {
    for (const [lang, block] of Object.entries((ontology[key] ?? {}) as OdinObject)) {
      const items = ((block as OdinObject).items ?? {}) as OdinObject;
      const map = terms.get(lang) ?? new Map<string, ArchetypeTerm>();
      terms.set(lang, map);
      for (const [code, t] of Object.entries(items)) {
        const term = t as OdinObject;
        map.set(code, {
          code,
          text: str(term.text),
          description: str(term.description),
          ...(typeof term.comment === "string" ? { comment: term.comment } : {}),
        });
      }
    }
  }
  const termBindings: TermBinding[] = [];
  for (const [terminology, block] of Object.entries((ontology.term_bindings ?? {}) as OdinObject)) {
    for (const [code, v] of Object.entries(((block as OdinObject).items ?? {}) as OdinObject)) {
      termBindings.push({ terminology, code, value: bindingText(v) });
    }
  }
  const description = parseOdin(sections.get("description")?.body ?? "", sections.get("description")?.line);
  const originalLanguage = original instanceof CodeTerm ? original.code : "en";
  const details = ((description.details ?? {}) as OdinObject)[originalLanguage] as OdinObject | undefined;
  const otherDetails = (description.other_details ?? {}) as OdinObject;
  const out: Archetype = { archetypeId, originalLanguage, definition, terms, termBindings };
  if (parent) out.parentId = parent.body.trim();
  if (typeof details?.copyright === "string") out.copyright = details.copyright;
  if (typeof otherDetails.licence === "string") out.licence = otherDetails.licence;
  if (typeof details?.purpose === "string") out.purpose = details.purpose;
  return out;
}

const str = (v: OdinValue | undefined): string => (typeof v === "string" ? v : "");

function bindingText(v: OdinValue): string {
  if (v instanceof CodeTerm) return v.code;
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return v.map(bindingText).join(", ");
  return String(v);
}
