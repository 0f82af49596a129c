// Builds an operational template from archetypes: the root archetype with the slots the template fills
// replaced by the filling archetypes' roots (recursively), `use_node` references expanded into copies (as
// Archetype Designer's OPTs do, so a CDR needs no path resolution), and each root's terms in one language.
import type { Archetype } from "../adl/archetype.js";
import type {
  ArchetypeSlot,
  ArchetypeTerm,
  CArchetypeRoot,
  CAttribute,
  CObject,
  OperationalTemplate,
} from "../am/model.js";
import { ANY, ONCE } from "../am/model.js";
import { conformsTo } from "../rm/model.js";

export interface TemplateSpec {
  template_id: string;
  /** The root node's name; default: the root archetype's concept text. */
  concept?: string;
  language?: string;
  purpose?: string;
  root: string;
  /** Archetype ids allowed in COMPOSITION.content (each 0..*). */
  content?: string[];
  /** archetype id -> slot node id -> the archetype ids that fill it. */
  slots?: Record<string, Record<string, string[]>>;
}

export type ArchetypeSource = (archetypeId: string) => Archetype;

/** The template; throws an Error naming the template and what is wrong. */
export function buildTemplate(spec: TemplateSpec, archetypes: ArchetypeSource): OperationalTemplate {
  const language = spec.language ?? "en";
  const fail = (msg: string): never => {
    throw new Error(`template ${spec.template_id}: ${msg}`);
  };
  const used = new Set<string>();
  const rootOf = (archetypeId: string, occurrences = { ...ONCE }, trail: string[] = []): CArchetypeRoot => {
    if (trail.includes(archetypeId)) fail(`slot filling loops: ${[...trail, archetypeId].join(" -> ")}`);
    const a = archetypes(archetypeId);
    const terms = a.terms.get(language) ?? a.terms.get(a.originalLanguage);
    if (!terms) fail(`${archetypeId} has no terms in ${language} or ${a.originalLanguage}`);
    const def = expandInternalRefs(structuredClone(a.definition), archetypeId, fail);
    const fills = spec.slots?.[archetypeId] ?? {};
    const fillSlots = (attrs: CAttribute[]): void => {
      for (const attr of attrs) {
        attr.children = attr.children.flatMap((c): CObject[] => {
          if (c.kind === "ARCHETYPE_SLOT") {
            const fillers = fills[c.nodeId];
            if (!fillers) return [c];
            used.add(`${archetypeId}/${c.nodeId}`);
            return fillers.map((id) => {
              checkFiller(c, id, archetypes(id).definition.rmTypeName, fail);
              return rootOf(id, { ...c.occurrences }, [...trail, archetypeId]);
            });
          }
          if (c.kind === "C_COMPLEX_OBJECT") fillSlots(c.attributes);
          return [c];
        });
      }
    };
    fillSlots(def.attributes);
    return {
      kind: "C_ARCHETYPE_ROOT",
      rmTypeName: def.rmTypeName,
      occurrences,
      nodeId: def.nodeId,
      attributes: def.attributes,
      archetypeId,
      // Trimmed as an XML reader will read them back.
      terms: [...(terms as Map<string, ArchetypeTerm>).values()]
        .filter((t) => t.code.startsWith("at"))
        .sort((x, y) => x.code.localeCompare(y.code))
        .map((t) => ({
          code: t.code,
          text: t.text.trim(),
          description: t.description.trim(),
          ...(t.comment !== undefined ? { comment: t.comment.trim() } : {}),
        })),
      termBindings: a.termBindings,
    };
  };
  const root = rootOf(spec.root);
  if (spec.content) {
    if (root.rmTypeName !== "COMPOSITION") fail("`content` needs a COMPOSITION root");
    const attr: CAttribute = {
      rmAttributeName: "content",
      existence: { lower: 0, upper: 1, lowerIncluded: true, upperIncluded: true },
      cardinality: { interval: { ...ANY }, ordered: false, unique: false },
      children: spec.content.map((id) => rootOf(id, { ...ANY }, [spec.root])),
    };
    root.attributes = [...root.attributes.filter((a) => a.rmAttributeName !== "content"), attr];
  }
  for (const [archetypeId, fills] of Object.entries(spec.slots ?? {}))
    for (const nodeId of Object.keys(fills))
      if (!used.has(`${archetypeId}/${nodeId}`))
        fail(`slots: ${archetypeId} ${nodeId} is not used by the template`);
  root.templateId = spec.template_id;
  const concept = spec.concept ?? root.terms.find((t) => t.code === "at0000")?.text ?? spec.template_id;
  root.terms = root.terms.map((t) => (t.code === "at0000" ? { ...t, text: concept } : t));
  const a = archetypes(spec.root);
  return {
    templateId: spec.template_id,
    concept,
    language,
    description: {
      ...(spec.purpose ? { purpose: spec.purpose } : {}),
      ...(a.copyright ? { copyright: a.copyright } : {}),
      ...(a.licence ? { licence: a.licence } : {}),
    },
    definition: root,
  };
}

function checkFiller(slot: ArchetypeSlot, id: string, rmType: string, fail: (m: string) => never): void {
  if (!conformsTo(rmType, slot.rmTypeName))
    fail(`${id} (${rmType}) cannot fill ${slot.rmTypeName} slot ${slot.nodeId}`);
  const matches = (p: string): boolean => new RegExp(`^(?:${p})$`).test(id);
  if (slot.includes.length > 0 && !slot.includes.some(matches))
    fail(`${id} is not allowed in slot ${slot.nodeId}`);
  if (slot.excludes.some(matches) && !slot.includes.some(matches))
    fail(`${id} is excluded from slot ${slot.nodeId}`);
}

/** Replaces each `use_node` with a copy of the node its path names, keeping the reference's occurrences. */
function expandInternalRefs<T extends CObject>(root: T, archetypeId: string, fail: (m: string) => never): T {
  const resolve = (path: string): CObject => {
    let node: CObject = root;
    for (const step of path.split("/").filter((x) => x !== "")) {
      const m = /^([a-z_]+)(?:\[([^\]]+)\])?$/.exec(step);
      if (!m || !("attributes" in node)) return fail(`${archetypeId}: cannot resolve use_node ${path}`);
      const attr = node.attributes.find((a) => a.rmAttributeName === m[1]);
      const next = attr?.children.find((c) => (m[2] ? c.nodeId === m[2] : true));
      if (!next) return fail(`${archetypeId}: cannot resolve use_node ${path}`);
      node = next;
    }
    return node;
  };
  const walk = (o: CObject): CObject => {
    if (o.kind === "ARCHETYPE_INTERNAL_REF") {
      const target = structuredClone(resolve(o.targetPath));
      return walk({ ...target, occurrences: o.occurrences });
    }
    if ("attributes" in o) for (const a of o.attributes) a.children = a.children.map(walk);
    return o;
  };
  return walk(root) as T;
}
