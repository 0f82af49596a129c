// Reads an OPT 1.4 XML document (from Archetype Designer, the Ocean template designer, or this package's
// template build) into the AM constraint tree the composition checker walks.
import { XMLParser } from "fast-xml-parser";
import type {
  ArchetypeTerm,
  CArchetypeRoot,
  CAttribute,
  CObject,
  CPrimitive,
  Interval,
  OperationalTemplate,
  TermBinding,
} from "../am/model.js";

type Node = Record<string, unknown>;

const ARRAYS = new Set([
  "children",
  "attributes",
  "code_list",
  "list",
  "term_definitions",
  "term_bindings",
  "items",
  "includes",
  "excludes",
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => ARRAYS.has(name),
});

export class OptError extends Error {
  override name = "OptError";
}

const text = (v: unknown): string => {
  if (v === undefined || v === null) return "";
  if (typeof v === "object") return text((v as Node)["#text"]);
  return String(v).trim();
};
const nodes = (v: unknown): Node[] =>
  Array.isArray(v) ? (v as Node[]) : v === undefined || v === "" ? [] : [v as Node];
const bool = (v: unknown): boolean => text(v) === "true";

function interval(n: unknown, numeric: true): Interval;
function interval(n: unknown, numeric: false): Interval<string>;
function interval(n: unknown, numeric: boolean): Interval<number | string> {
  const o = (n ?? {}) as Node;
  const conv = (v: unknown): number | string => (numeric ? Number(text(v)) : text(v));
  const out: Interval<number | string> = {
    lowerIncluded: bool(o.lower_included),
    upperIncluded: bool(o.upper_included),
  };
  if (!bool(o.lower_unbounded) && o.lower !== undefined) out.lower = conv(o.lower);
  if (!bool(o.upper_unbounded) && o.upper !== undefined) out.upper = conv(o.upper);
  // Some tools leave *_included out; a stated bound is then included.
  if (o.lower_included === undefined && out.lower !== undefined) out.lowerIncluded = true;
  if (o.upper_included === undefined && out.upper !== undefined) out.upperIncluded = true;
  return out;
}

const xsiType = (n: Node): string => text(n["@type"]);

function slotPatterns(list: unknown): string[] {
  return nodes(list).map((a) => {
    const pattern = text((((a.expression as Node)?.right_operand as Node)?.item as Node)?.pattern);
    if (pattern) return pattern;
    const m = /matches\s*\{\s*\/(.*)\/\s*\}/s.exec(text(a.string_expression));
    return m ? (m[1] as string) : ".*";
  });
}

function primitive(n: Node): CPrimitive {
  const t = xsiType(n);
  switch (t) {
    case "C_BOOLEAN":
      return { type: t, trueValid: bool(n.true_valid), falseValid: bool(n.false_valid) };
    case "C_STRING": {
      const list = nodes(n.list).map(text);
      return {
        type: t,
        ...(n.pattern !== undefined ? { pattern: text(n.pattern) } : {}),
        ...(list.length ? { list } : {}),
      };
    }
    case "C_INTEGER":
    case "C_REAL": {
      const list = nodes(n.list).map((x) => Number(text(x)));
      return {
        type: t,
        ...(list.length ? { list } : {}),
        ...(n.range ? { range: interval(n.range, true) } : {}),
      };
    }
    case "C_DATE":
    case "C_TIME":
    case "C_DATE_TIME":
    case "C_DURATION":
      return {
        type: t,
        ...(n.pattern !== undefined ? { pattern: text(n.pattern) } : {}),
        ...(n.range ? { range: interval(n.range, false) } : {}),
      };
    default:
      throw new OptError(`unknown C_PRIMITIVE type ${JSON.stringify(t)}`);
  }
}

function attribute(n: Node): CAttribute {
  const a: CAttribute = {
    rmAttributeName: text(n.rm_attribute_name),
    existence: interval(n.existence, true),
    children: nodes(n.children).map(object),
  };
  if (xsiType(n) === "C_MULTIPLE_ATTRIBUTE" || n.cardinality !== undefined) {
    const c = (n.cardinality ?? {}) as Node;
    a.cardinality = {
      interval: interval(c.interval, true),
      ordered: bool(c.is_ordered),
      unique: bool(c.is_unique),
    };
  }
  return a;
}

function root(n: Node): CArchetypeRoot {
  const terms: ArchetypeTerm[] = nodes(n.term_definitions).map((t) => {
    const items = new Map(nodes(t.items).map((i) => [text(i["@id"]), text(i)]));
    return {
      code: text(t["@code"]),
      text: items.get("text") ?? "",
      description: items.get("description") ?? "",
      ...(items.has("comment") ? { comment: items.get("comment") as string } : {}),
    };
  });
  const termBindings: TermBinding[] = nodes(n.term_bindings).flatMap((b) =>
    nodes(b.items).map((i) => ({
      terminology: text(b["@terminology"]),
      code: text(i["@code"]),
      value: text((i.value as Node)?.code_string ?? i.value),
    })),
  );
  const templateId = text((n.template_id as Node)?.value);
  return {
    kind: "C_ARCHETYPE_ROOT",
    rmTypeName: text(n.rm_type_name),
    occurrences: interval(n.occurrences, true),
    nodeId: text(n.node_id),
    attributes: nodes(n.attributes).map(attribute),
    archetypeId: text((n.archetype_id as Node)?.value),
    ...(templateId ? { templateId } : {}),
    terms,
    termBindings,
  };
}

function object(n: Node): CObject {
  const kind = xsiType(n);
  const base = {
    rmTypeName: text(n.rm_type_name),
    occurrences: interval(n.occurrences, true),
    nodeId: text(n.node_id),
  };
  switch (kind) {
    case "C_COMPLEX_OBJECT":
      return { kind, ...base, attributes: nodes(n.attributes).map(attribute) };
    case "C_ARCHETYPE_ROOT":
      return root(n);
    case "ARCHETYPE_SLOT":
      return { kind, ...base, includes: slotPatterns(n.includes), excludes: slotPatterns(n.excludes) };
    case "ARCHETYPE_INTERNAL_REF":
      return { kind, ...base, targetPath: text(n.target_path) };
    case "CONSTRAINT_REF":
      return { kind, ...base, reference: text(n.reference) };
    case "C_CODE_PHRASE": {
      const assumed = text((n.assumed_value as Node)?.code_string);
      const terminologyId = text((n.terminology_id as Node)?.value);
      return {
        kind,
        ...base,
        ...(terminologyId ? { terminologyId } : {}),
        codeList: nodes(n.code_list).map(text),
        ...(assumed ? { assumedValue: assumed } : {}),
      };
    }
    case "C_DV_QUANTITY": {
      const prop = n.property as Node | undefined;
      return {
        kind,
        ...base,
        ...(prop
          ? {
              property: {
                terminologyId: text((prop.terminology_id as Node)?.value),
                code: text(prop.code_string),
              },
            }
          : {}),
        list: nodes(n.list).map((q) => ({
          units: text(q.units),
          ...(q.magnitude ? { magnitude: interval(q.magnitude, true) } : {}),
          ...(q.precision ? { precision: interval(q.precision, true) } : {}),
        })),
      };
    }
    case "C_DV_ORDINAL":
      return {
        kind,
        ...base,
        list: nodes(n.list).map((o) => {
          const code = ((o.symbol as Node)?.defining_code ?? {}) as Node;
          return {
            value: Number(text(o.value)),
            terminologyId: text((code.terminology_id as Node)?.value),
            code: text(code.code_string),
          };
        }),
      };
    case "C_PRIMITIVE_OBJECT":
      return { kind, ...base, item: primitive((n.item ?? {}) as Node) };
    default:
      throw new OptError(
        `unknown constraint type ${JSON.stringify(kind)} (${base.rmTypeName} ${base.nodeId})`,
      );
  }
}

/** Parses OPT 1.4 XML; throws OptError when it is not one. */
export function readOpt(xml: string): OperationalTemplate {
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (e) {
    throw new OptError(`not well-formed XML: ${(e as Error).message}`);
  }
  const t = doc.template as Node | undefined;
  if (!t || typeof t !== "object") throw new OptError("not an operational template: no <template> element");
  const templateId = text((t.template_id as Node)?.value);
  if (!templateId) throw new OptError("the template has no template_id");
  const def = t.definition as Node | undefined;
  if (!def) throw new OptError(`template ${templateId} has no definition`);
  const uid = text((t.uid as Node)?.value);
  return {
    templateId,
    concept: text(t.concept),
    language: text((t.language as Node)?.code_string) || "en",
    ...(uid ? { uid } : {}),
    definition: root(def),
  };
}
