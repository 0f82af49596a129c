// Serialises an operational template as OPT 1.4 XML in the layout Archetype Designer exports and openEHR CDRs
// (EHRbase among them) accept: namespace http://schemas.openehr.org/v1, C_* types as xsi:type.
import type {
  ArchetypeSlot,
  CArchetypeRoot,
  CAttribute,
  CObject,
  CPrimitive,
  Interval,
  OperationalTemplate,
} from "../am/model.js";

const esc = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

class Xml {
  readonly lines: string[] = [];
  private depth = 0;
  open(tag: string, attrs = ""): void {
    this.lines.push(`${"  ".repeat(this.depth)}<${tag}${attrs}>`);
    this.depth++;
  }
  close(tag: string): void {
    this.depth--;
    this.lines.push(`${"  ".repeat(this.depth)}</${tag}>`);
  }
  leaf(tag: string, text: string | number | boolean, attrs = ""): void {
    const t = esc(String(text));
    this.lines.push(
      `${"  ".repeat(this.depth)}${t === "" ? `<${tag}${attrs}/>` : `<${tag}${attrs}>${t}</${tag}>`}`,
    );
  }
  block(tag: string, body: () => void, attrs = ""): void {
    this.open(tag, attrs);
    body();
    this.close(tag);
  }
}

const XSI = ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';

function interval(x: Xml, tag: string, i: Interval<number | string>): void {
  x.block(tag, () => {
    x.leaf("lower_included", i.lower === undefined ? false : i.lowerIncluded);
    x.leaf("upper_included", i.upper === undefined ? false : i.upperIncluded);
    x.leaf("lower_unbounded", i.lower === undefined);
    x.leaf("upper_unbounded", i.upper === undefined);
    if (i.lower !== undefined) x.leaf("lower", i.lower);
    if (i.upper !== undefined) x.leaf("upper", i.upper);
  });
}

function codePhrase(x: Xml, tag: string, terminology: string, code: string): void {
  x.block(tag, () => {
    x.block("terminology_id", () => x.leaf("value", terminology));
    x.leaf("code_string", code);
  });
}

function objectHead(x: Xml, o: CObject): void {
  x.leaf("rm_type_name", o.rmTypeName);
  interval(x, "occurrences", o.occurrences);
  x.leaf("node_id", o.nodeId);
}

function attribute(x: Xml, a: CAttribute): void {
  x.block(
    "attributes",
    () => {
      x.leaf("rm_attribute_name", a.rmAttributeName);
      interval(x, "existence", a.existence);
      for (const c of a.children) object(x, c);
      if (a.cardinality) {
        const card = a.cardinality;
        x.block("cardinality", () => {
          x.leaf("is_ordered", card.ordered);
          x.leaf("is_unique", card.unique);
          interval(x, "interval", card.interval);
        });
      }
    },
    ` xsi:type="${a.cardinality ? "C_MULTIPLE_ATTRIBUTE" : "C_SINGLE_ATTRIBUTE"}"`,
  );
}

function slotAssertion(x: Xml, tag: string, pattern: string): void {
  x.block(tag, () => {
    x.leaf("string_expression", `archetype_id/value matches {/${pattern}/}`);
    x.block(
      "expression",
      () => {
        x.leaf("type", "Boolean");
        x.leaf("operator", 2007);
        x.leaf("precedence_overridden", false);
        x.block(
          "left_operand",
          () => {
            x.leaf("type", "String");
            x.leaf(
              "item",
              "archetype_id/value",
              ' xsi:type="xs:string" xmlns:xs="http://www.w3.org/2001/XMLSchema"',
            );
            x.leaf("reference_type", "attribute");
          },
          ' xsi:type="EXPR_LEAF"',
        );
        x.block(
          "right_operand",
          () => {
            x.leaf("type", "C_STRING");
            x.block("item", () => x.leaf("pattern", pattern), ' xsi:type="C_STRING"');
            x.leaf("reference_type", "constraint");
          },
          ' xsi:type="EXPR_LEAF"',
        );
      },
      ' xsi:type="EXPR_BINARY_OPERATOR"',
    );
  });
}

function primitive(x: Xml, p: CPrimitive): void {
  x.block(
    "item",
    () => {
      switch (p.type) {
        case "C_BOOLEAN":
          x.leaf("true_valid", p.trueValid);
          x.leaf("false_valid", p.falseValid);
          break;
        case "C_STRING":
          if (p.pattern !== undefined) x.leaf("pattern", p.pattern);
          for (const s of p.list ?? []) x.leaf("list", s);
          break;
        case "C_INTEGER":
        case "C_REAL":
          for (const n of p.list ?? []) x.leaf("list", n);
          if (p.range) interval(x, "range", p.range);
          break;
        default:
          if (p.pattern !== undefined) x.leaf("pattern", p.pattern);
          if (p.range) interval(x, "range", p.range);
      }
    },
    ` xsi:type="${p.type}"`,
  );
}

function object(x: Xml, o: CObject): void {
  x.block(
    "children",
    () => {
      objectHead(x, o);
      switch (o.kind) {
        case "C_COMPLEX_OBJECT":
          for (const a of o.attributes) attribute(x, a);
          break;
        case "C_ARCHETYPE_ROOT":
          rootBody(x, o);
          break;
        case "ARCHETYPE_SLOT":
          slotBody(x, o);
          break;
        case "ARCHETYPE_INTERNAL_REF":
          x.leaf("target_path", o.targetPath);
          break;
        case "CONSTRAINT_REF":
          x.leaf("reference", o.reference);
          break;
        case "C_CODE_PHRASE":
          if (o.assumedValue !== undefined && o.terminologyId)
            codePhrase(x, "assumed_value", o.terminologyId, o.assumedValue);
          if (o.terminologyId) x.block("terminology_id", () => x.leaf("value", o.terminologyId as string));
          for (const c of o.codeList) x.leaf("code_list", c);
          break;
        case "C_DV_QUANTITY":
          if (o.property) codePhrase(x, "property", o.property.terminologyId, o.property.code);
          for (const q of o.list)
            x.block("list", () => {
              if (q.magnitude) interval(x, "magnitude", q.magnitude);
              if (q.precision) interval(x, "precision", q.precision);
              x.leaf("units", q.units);
            });
          break;
        case "C_DV_ORDINAL":
          for (const item of o.list)
            x.block("list", () => {
              x.leaf("value", item.value);
              x.block("symbol", () => {
                x.leaf("value", item.code);
                codePhrase(x, "defining_code", item.terminologyId, item.code);
              });
            });
          break;
        case "C_PRIMITIVE_OBJECT":
          primitive(x, o.item);
          break;
      }
    },
    ` xsi:type="${o.kind}"`,
  );
}

function slotBody(x: Xml, s: ArchetypeSlot): void {
  for (const p of s.includes) slotAssertion(x, "includes", p);
  for (const p of s.excludes) slotAssertion(x, "excludes", p);
}

function rootBody(x: Xml, r: CArchetypeRoot): void {
  for (const a of r.attributes) attribute(x, a);
  x.block("archetype_id", () => x.leaf("value", r.archetypeId));
  if (r.templateId) x.block("template_id", () => x.leaf("value", r.templateId as string));
  for (const t of r.terms)
    x.block(
      "term_definitions",
      () => {
        x.leaf("items", t.text, ' id="text"');
        x.leaf("items", t.description, ' id="description"');
        if (t.comment !== undefined) x.leaf("items", t.comment, ' id="comment"');
      },
      ` code="${esc(t.code)}"`,
    );
  const byTerminology = new Map<string, { code: string; value: string }[]>();
  for (const b of r.termBindings) {
    const list = byTerminology.get(b.terminology) ?? [];
    list.push(b);
    byTerminology.set(b.terminology, list);
  }
  for (const [terminology, items] of byTerminology)
    x.block(
      "term_bindings",
      () => {
        for (const b of items)
          x.block("items", () => codePhrase(x, "value", terminology, b.value), ` code="${esc(b.code)}"`);
      },
      ` terminology="${esc(terminology)}"`,
    );
}

/** The OPT 1.4 XML text of a template. */
export function writeOpt(t: OperationalTemplate): string {
  const x = new Xml();
  x.lines.push('<?xml version="1.0" encoding="UTF-8"?>');
  x.block(
    "template",
    () => {
      codePhrase(x, "language", "ISO_639-1", t.language);
      x.block("description", () => {
        x.leaf("original_author", "crossmap", ' id="name"');
        x.leaf("lifecycle_state", "published");
        if (t.description?.licence) x.leaf("other_details", t.description.licence, ' id="licence"');
        x.leaf(
          "other_details",
          "crossmap openEHR template build (scripts/build-openehr-templates.ts)",
          ' id="Generated By"',
        );
        x.block("details", () => {
          codePhrase(x, "language", "ISO_639-1", t.language);
          x.leaf("purpose", t.description?.purpose ?? t.concept);
          if (t.description?.copyright) x.leaf("copyright", t.description.copyright);
        });
      });
      if (t.uid) x.block("uid", () => x.leaf("value", t.uid as string));
      x.block("template_id", () => x.leaf("value", t.templateId));
      x.leaf("concept", t.concept);
      x.block("definition", () => {
        objectHead(x, t.definition);
        rootBody(x, t.definition);
      });
    },
    ` xmlns="http://schemas.openehr.org/v1"${XSI}`,
  );
  return `${x.lines.join("\n")}\n`;
}
