// Checks canonical JSON against an operational template: archetype node ids, RM types, occurrences and
// cardinality, existence, code lists of coded items, units and ranges of quantities, primitive constraints.
// Every violation carries the JSON path and the template node (archetype path) it concerns.
import {
  type ArchetypeSlot,
  type CArchetypeRoot,
  type CAttribute,
  type CObject,
  formatInterval,
  inInterval,
  type OperationalTemplate,
} from "../am/model.js";
import { conformsTo } from "../rm/model.js";
import {
  codePhraseProblems,
  type LeafProblem,
  ordinalProblems,
  primitiveProblem,
  quantityProblems,
} from "./leaf.js";
import { joinPath, type Violation } from "./types.js";

type Json = Record<string, unknown>;

interface Ctx {
  /** The archetype root the current node belongs to (for use_node paths and term texts). */
  root: CArchetypeRoot;
  /** Archetype path of the current node: `[openEHR-EHR-COMPOSITION.encounter.v1]/content[...]/data[at0001]`. */
  node: string;
}

const isObj = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);
const isLocatable = (v: unknown): boolean => isObj(v) && typeof v.archetype_node_id === "string";
const matchesId = (pattern: string, id: string): boolean => new RegExp(`^(?:${pattern})$`).test(id);

export class TemplateChecker {
  private readonly refs = new Map<string, CObject | undefined>();

  constructor(readonly template: OperationalTemplate) {}

  check(obj: unknown): Violation[] {
    const def = this.template.definition;
    const out: Violation[] = [];
    if (!isObj(obj)) return [{ severity: "error", code: "rm_type", path: "", message: "not an object" }];
    const templateId = ((obj.archetype_details as Json | undefined)?.template_id as Json | undefined)?.value;
    if (templateId !== this.template.templateId)
      out.push(
        this.v(
          "template_id",
          "archetype_details.template_id",
          undefined,
          `is ${JSON.stringify(templateId)}, not ${this.template.templateId}`,
        ),
      );
    this.object(obj, def, "", { root: def, node: `[${def.archetypeId}]` }, out);
    return out;
  }

  private v(
    code: string,
    path: string,
    node: string | undefined,
    message: string,
    severity: Violation["severity"] = "error",
  ): Violation {
    return { severity, code, path, ...(node ? { node } : {}), message };
  }

  private leaves(problems: LeafProblem[], path: string, ctx: Ctx, out: Violation[]): void {
    for (const p of problems)
      out.push(this.v(p.code, p.at ? joinPath(path, p.at) : path, ctx.node, p.message));
  }

  /** Checks one value against one constraint. */
  private object(v: unknown, c: CObject, path: string, ctx: Ctx, out: Violation[]): void {
    if (c.kind === "C_PRIMITIVE_OBJECT") {
      const problem = primitiveProblem(v, c.item);
      if (problem) out.push(this.v("value", path, ctx.node, problem));
      return;
    }
    if (c.kind === "ARCHETYPE_INTERNAL_REF") {
      const target = this.resolve(ctx.root, c.targetPath);
      if (target)
        this.object(v, target, path, { ...ctx, node: `[${ctx.root.archetypeId}]${c.targetPath}` }, out);
      else out.push(this.v("template", path, ctx.node, `use_node ${c.targetPath} does not resolve`));
      return;
    }
    if (!isObj(v)) {
      out.push(this.v("rm_type", path, ctx.node, `must be ${c.rmTypeName}, not ${JSON.stringify(v)}`));
      return;
    }
    const type = typeof v._type === "string" ? v._type : c.rmTypeName;
    if (!conformsTo(type, c.rmTypeName)) {
      out.push(this.v("rm_type", path, ctx.node, `${type} where the template allows ${c.rmTypeName}`));
      return;
    }
    switch (c.kind) {
      case "C_ARCHETYPE_ROOT": {
        if (v.archetype_node_id !== c.archetypeId)
          out.push(
            this.v(
              "node_id",
              path,
              ctx.node,
              `archetype_node_id is ${JSON.stringify(v.archetype_node_id)}, not ${c.archetypeId}`,
            ),
          );
        const id = ((v.archetype_details as Json | undefined)?.archetype_id as Json | undefined)?.value;
        if (id !== c.archetypeId)
          out.push(
            this.v(
              "archetype_details",
              joinPath(path, "archetype_details"),
              ctx.node,
              `archetype_id must be ${c.archetypeId}, not ${JSON.stringify(id)}`,
            ),
          );
        const inner = { root: c, node: ctx.node };
        this.name(v, c, "at0000", path, inner, out);
        this.attributes(v, c.attributes, path, inner, out);
        return;
      }
      case "C_COMPLEX_OBJECT":
        if (c.nodeId && isLocatable(v)) {
          if (v.archetype_node_id !== c.nodeId)
            out.push(
              this.v(
                "node_id",
                path,
                ctx.node,
                `archetype_node_id is ${JSON.stringify(v.archetype_node_id)}, not ${c.nodeId}`,
              ),
            );
          this.name(v, c, c.nodeId, path, ctx, out);
        }
        this.attributes(v, c.attributes, path, ctx, out);
        return;
      case "ARCHETYPE_SLOT":
        this.slot(v, c, path, ctx, out);
        return;
      case "C_CODE_PHRASE":
        this.leaves(codePhraseProblems(v, c), path, ctx, out);
        return;
      case "C_DV_QUANTITY":
        this.leaves(quantityProblems(v, c), path, ctx, out);
        return;
      case "C_DV_ORDINAL":
        this.leaves(ordinalProblems(v, c), path, ctx, out);
        return;
      default:
        return; // CONSTRAINT_REF: a code of an external value set the template does not list.
    }
  }

  /** A node's `name` should be its term's text: a warning, since the RM lets a name differ unless constrained. */
  private name(v: Json, c: CObject, code: string, path: string, ctx: Ctx, out: Violation[]): void {
    if ("attributes" in c && c.attributes.some((a) => a.rmAttributeName === "name")) return;
    const term = ctx.root.terms.find((t) => t.code === code);
    const name = (v.name as Json | undefined)?.value;
    if (term && typeof name === "string" && name !== term.text)
      out.push(
        this.v(
          "name",
          joinPath(path, "name"),
          ctx.node,
          `name ${JSON.stringify(name)} differs from the template's ${JSON.stringify(term.text)}`,
          "warning",
        ),
      );
  }

  private slot(v: Json, c: ArchetypeSlot, path: string, ctx: Ctx, out: Violation[]): void {
    const id = String(v.archetype_node_id);
    const included = c.includes.length === 0 || c.includes.some((p) => matchesId(p, id));
    const excluded = c.excludes.some((p) => matchesId(p, id));
    if (!included || (excluded && !c.includes.some((p) => p !== ".*" && matchesId(p, id))))
      out.push(this.v("slot", path, ctx.node, `${id} is not allowed in slot ${c.nodeId}`));
  }

  private childNode(ctx: Ctx, attr: string, c: CObject): string {
    if (c.kind === "C_ARCHETYPE_ROOT") return `${ctx.node}/${attr}[${c.archetypeId}]`;
    return `${ctx.node}/${attr}${c.nodeId ? `[${c.nodeId}]` : ""}`;
  }

  private attributes(v: Json, attrs: CAttribute[], path: string, ctx: Ctx, out: Violation[]): void {
    for (const a of attrs) {
      const value = v[a.rmAttributeName];
      const p = joinPath(path, a.rmAttributeName);
      if (value === undefined || value === null) {
        if ((a.existence.lower ?? 0) >= 1)
          out.push(this.v("existence", p, ctx.node, `${a.rmAttributeName} is mandatory here`));
        else if (a.cardinality) this.occurrences(a, new Map(), p, ctx, out);
        continue;
      }
      if (!a.cardinality) {
        if (a.children.length === 0) continue;
        const child = this.pick(value, a.children, ctx);
        if (child)
          this.object(value, child, p, { ...ctx, node: this.childNode(ctx, a.rmAttributeName, child) }, out);
        else
          out.push(
            this.v("unexpected_node", p, `${ctx.node}/${a.rmAttributeName}`, this.unmatched(value, a)),
          );
        continue;
      }
      if (!Array.isArray(value)) {
        out.push(this.v("rm_type", p, ctx.node, `${a.rmAttributeName} must be a list`));
        continue;
      }
      if (!inInterval(a.cardinality.interval, value.length))
        out.push(
          this.v(
            "cardinality",
            p,
            ctx.node,
            `${value.length} items where ${formatInterval(a.cardinality.interval)} are allowed`,
          ),
        );
      const counts = new Map<CObject, number>();
      value.forEach((item, i) => {
        const ip = joinPath(p, i);
        const child = this.pick(item, a.children, ctx);
        if (!child) {
          if (a.children.length > 0)
            out.push(
              this.v("unexpected_node", ip, `${ctx.node}/${a.rmAttributeName}`, this.unmatched(item, a)),
            );
          return;
        }
        counts.set(child, (counts.get(child) ?? 0) + 1);
        this.object(item, child, ip, { ...ctx, node: this.childNode(ctx, a.rmAttributeName, child) }, out);
      });
      this.occurrences(a, counts, p, ctx, out);
    }
  }

  /** Each child constraint's occurrences against how many items matched it. */
  private occurrences(
    a: CAttribute,
    counts: Map<CObject, number>,
    p: string,
    ctx: Ctx,
    out: Violation[],
  ): void {
    for (const child of a.children) {
      const n = counts.get(child) ?? 0;
      if (!inInterval(child.occurrences, n))
        out.push(
          this.v(
            "occurrences",
            p,
            this.childNode(ctx, a.rmAttributeName, child),
            n < (child.occurrences.lower ?? 0)
              ? `${this.label(child, ctx)} is mandatory (${formatInterval(child.occurrences)})`
              : `${n} ${this.label(child, ctx)} where ${formatInterval(child.occurrences)} are allowed`,
          ),
        );
    }
  }

  private label(c: CObject, ctx: Ctx): string {
    if (c.kind === "C_ARCHETYPE_ROOT") return c.archetypeId;
    const term = ctx.root.terms.find((t) => t.code === c.nodeId)?.text;
    return `${c.rmTypeName}${c.nodeId ? `[${c.nodeId}]` : ""}${term ? ` (${term})` : ""}`;
  }

  private unmatched(v: unknown, a: CAttribute): string {
    if (!isObj(v)) return `${JSON.stringify(v)} matches no constraint of ${a.rmAttributeName}`;
    const id = typeof v.archetype_node_id === "string" ? `[${v.archetype_node_id}]` : "";
    const allowed = a.children
      .map((c) =>
        c.kind === "C_ARCHETYPE_ROOT" ? c.archetypeId : `${c.rmTypeName}${c.nodeId ? `[${c.nodeId}]` : ""}`,
      )
      .join(", ");
    return `${String(v._type ?? "?")}${id} is not allowed here (the template allows ${allowed})`;
  }

  /**
   * The child constraint an item is checked against: LOCATABLEs by archetype_node_id (of several
   * alternatives with one id, the first that passes), other values by RM type (DV_CODED_TEXT or DV_TEXT;
   * of several ISM_TRANSITIONs, the first that passes).
   */
  private pick(v: unknown, children: CObject[], ctx: Ctx): CObject | undefined {
    if (!isObj(v)) return children.find((c) => c.kind === "C_PRIMITIVE_OBJECT") ?? children[0];
    let candidates: CObject[];
    if (isLocatable(v)) {
      const id = v.archetype_node_id as string;
      candidates = children.filter((c) => {
        if (c.kind === "C_ARCHETYPE_ROOT") return c.archetypeId === id;
        if (c.kind === "ARCHETYPE_SLOT")
          return id.startsWith("openEHR-") && c.includes.some((p) => matchesId(p, id));
        if (c.kind === "ARCHETYPE_INTERNAL_REF") return c.targetPath.endsWith(`[${id}]`);
        return c.nodeId === id;
      });
    } else {
      const type = typeof v._type === "string" ? v._type : (children[0]?.rmTypeName ?? "");
      // A LOCATABLE without an archetype_node_id matches no constraint (the RM schema reports what it lacks).
      if (conformsTo(type, "LOCATABLE")) return undefined;
      candidates = children.filter((c) => conformsTo(type, c.rmTypeName));
    }
    if (candidates.length <= 1) return candidates[0];
    const type = v._type;
    const ordered = [
      ...candidates.filter((c) => c.rmTypeName === type),
      ...candidates.filter((c) => c.rmTypeName !== type),
    ];
    for (const c of ordered) {
      const trial: Violation[] = [];
      this.object(v, c, "", ctx, trial);
      if (!trial.some((x) => x.severity === "error")) return c;
    }
    return ordered[0];
  }

  /** The node an archetype-internal path names, inside the archetype root that holds the reference. */
  private resolve(root: CArchetypeRoot, path: string): CObject | undefined {
    const key = `${root.archetypeId}\0${path}`;
    if (this.refs.has(key)) return this.refs.get(key);
    let node: CObject | undefined = root;
    for (const step of path.split("/").filter((x) => x !== "")) {
      const m = /^([a-z_]+)(?:\[([^\]]+)\])?$/.exec(step);
      if (!m || !node || !("attributes" in node)) {
        node = undefined;
        break;
      }
      const attr: CAttribute | undefined = node.attributes.find((a) => a.rmAttributeName === m[1]);
      node = attr?.children.find(
        (c) => !m[2] || c.nodeId === m[2] || (c.kind === "C_ARCHETYPE_ROOT" && c.archetypeId === m[2]),
      );
    }
    this.refs.set(key, node);
    return node;
  }
}
