// A one-line-per-node outline of a constraint tree (`items[at0004] ELEMENT 0..1 -- Systolic`), for reading a
// template in a terminal and for reviewing what a template allows.
import { type CObject, formatInterval } from "./model.js";

type Terms = (code: string) => string | undefined;

export function outline(root: CObject, termOf: Terms = () => undefined, indent = ""): string[] {
  const out: string[] = [];
  const label = (o: CObject): string => {
    const occ = formatInterval(o.occurrences);
    const term =
      o.kind === "C_ARCHETYPE_ROOT"
        ? o.terms.find((t) => t.code === "at0000")?.text
        : o.nodeId
          ? termOf(o.nodeId)
          : undefined;
    const id = o.kind === "C_ARCHETYPE_ROOT" ? o.archetypeId : o.nodeId;
    let detail = "";
    if (o.kind === "C_CODE_PHRASE") detail = ` [${o.terminologyId}::${o.codeList.join(",")}]`;
    if (o.kind === "C_DV_QUANTITY") detail = ` ${o.list.map((q) => q.units).join("|")}`;
    if (o.kind === "ARCHETYPE_SLOT") detail = ` include ${o.includes.join(" ")}`;
    if (o.kind === "ARCHETYPE_INTERNAL_REF") detail = ` -> ${o.targetPath}`;
    if (o.kind === "C_PRIMITIVE_OBJECT") detail = ` ${JSON.stringify(o.item)}`;
    return `${o.rmTypeName}${id ? `[${id}]` : ""} ${occ}${detail}${term ? ` -- ${term}` : ""}`;
  };
  out.push(indent + label(root));
  if (root.kind === "C_COMPLEX_OBJECT" || root.kind === "C_ARCHETYPE_ROOT") {
    const terms: Terms =
      root.kind === "C_ARCHETYPE_ROOT" ? (c) => root.terms.find((t) => t.code === c)?.text : termOf;
    for (const a of root.attributes) {
      const card = a.cardinality ? ` card ${formatInterval(a.cardinality.interval)}` : "";
      out.push(`${indent}  .${a.rmAttributeName} exist ${formatInterval(a.existence)}${card}`);
      for (const c of a.children) out.push(...outline(c, terms, `${indent}    `));
    }
  }
  return out;
}
