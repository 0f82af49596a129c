// cADL, the constraint syntax of an ADL 1.4 `definition` section, parsed into the AM constraint tree.
// Where the archetype leaves occurrences, existence or cardinality unsaid, the defaults come from ADL 1.4
// (occurrences 1..1) and from the RM (an attribute is mandatory or a list as the RM class says).
import {
  type ArchetypeInternalRef,
  type ArchetypeSlot,
  type CAttribute,
  type CComplexObject,
  type CDvOrdinal,
  type CDvQuantity,
  type CObject,
  type CPrimitive,
  type CPrimitiveObject,
  type Interval,
  ONCE,
  type QuantityItem,
} from "../am/model.js";
import { rmClass } from "../rm/model.js";
import { CodeTerm, OdinInterval, type OdinObject, readBlock } from "./odin.js";
import { parseIntervalBody, type RawInterval, Scanner } from "./scanner.js";

/** Parses the text of a `definition` section (its first line is `firstLine` of the file). */
export function parseDefinition(text: string, firstLine = 1): CComplexObject {
  const s = new Scanner(text, firstLine);
  const root = readObject(s);
  if (s.skip()) s.fail(`unexpected ${JSON.stringify(s.around())}`);
  return root.kind === "C_COMPLEX_OBJECT" ? root : s.fail("the definition must start with a complex object");
}

function occurrencesOrOnce(s: Scanner): Interval {
  if (!s.acceptWord("occurrences")) return { ...ONCE };
  s.expect("matches");
  s.expect("{");
  const i = numericInterval(s, s.until("}"));
  s.expect("}");
  return i;
}

/** `0..1`, `1..*`, `1`. */
function numericInterval(s: Scanner, body: string): Interval {
  const m = /^(\d+)(?:\s*\.\.\s*(\d+|\*))?$/.exec(body.trim());
  if (!m) s.fail(`expected an interval like 0..1 or 1..*, found ${JSON.stringify(body)}`);
  const lower = Number(m[1]);
  if (m[2] === undefined) return { lower, upper: lower, lowerIncluded: true, upperIncluded: true };
  if (m[2] === "*") return { lower, lowerIncluded: true, upperIncluded: false };
  return { lower, upper: Number(m[2]), lowerIncluded: true, upperIncluded: true };
}

function readObject(s: Scanner): CObject {
  if (s.acceptWord("allow_archetype")) return readSlot(s);
  if (s.acceptWord("use_node")) {
    const rmTypeName = s.typeName();
    const occurrences = occurrencesOrOnce(s);
    s.skip();
    const m = /^\/[^\s}]*/.exec(s.text.slice(s.pos, s.pos + 500));
    if (!m) s.fail("use_node without a path");
    s.pos += m[0].length;
    const targetPath = m[0];
    const ref: ArchetypeInternalRef = {
      kind: "ARCHETYPE_INTERNAL_REF",
      rmTypeName,
      occurrences,
      nodeId: "",
      targetPath,
    };
    return ref;
  }
  if (s.peek() === "[") return readCodePhrase(s);
  const rmTypeName = s.typeName();
  if (rmTypeName === "C_DV_QUANTITY" && s.peek() === "<") return readQuantity(s);
  let nodeId = "";
  if (s.accept("[")) {
    nodeId = s.until("]");
    s.expect("]");
  }
  const occurrences = occurrencesOrOnce(s);
  const obj: CComplexObject = { kind: "C_COMPLEX_OBJECT", rmTypeName, occurrences, nodeId, attributes: [] };
  if (!s.acceptWord("matches")) return obj;
  s.expect("{");
  if (s.accept("*")) {
    s.expect("}");
    return obj;
  }
  while (s.peek() !== "}") obj.attributes.push(readAttribute(s, rmTypeName));
  s.expect("}");
  return obj;
}

function readSlot(s: Scanner): ArchetypeSlot {
  const rmTypeName = s.typeName();
  let nodeId = "";
  if (s.accept("[")) {
    nodeId = s.until("]");
    s.expect("]");
  }
  const occurrences = occurrencesOrOnce(s);
  const slot: ArchetypeSlot = {
    kind: "ARCHETYPE_SLOT",
    rmTypeName,
    occurrences,
    nodeId,
    includes: [],
    excludes: [],
  };
  if (!s.acceptWord("matches")) return slot;
  s.expect("{");
  let list: string[] | undefined;
  while (s.peek() !== "}") {
    if (s.acceptWord("include")) list = slot.includes;
    else if (s.acceptWord("exclude")) list = slot.excludes;
    else if (list) {
      s.expect("archetype_id/value");
      s.expect("matches");
      s.expect("{");
      list.push(s.regex());
      s.expect("}");
    } else s.fail(`expected include or exclude, found ${JSON.stringify(s.around())}`);
  }
  s.expect("}");
  return slot;
}

/** `[local::at0001, at0002; at0001]`, `[openehr::433]`, or `[ac0001]` (a constraint reference). */
function readCodePhrase(s: Scanner): CObject {
  s.expect("[");
  const body = s.until("]").replace(/--[^\n]*/g, "");
  s.expect("]");
  const i = body.indexOf("::");
  if (i < 0) {
    const reference = body.trim();
    if (!/^ac\d+/.test(reference)) s.fail(`expected a code phrase or ac-code, found [${reference}]`);
    return {
      kind: "CONSTRAINT_REF",
      rmTypeName: "CODE_PHRASE",
      occurrences: { ...ONCE },
      nodeId: "",
      reference,
    };
  }
  const terminologyId = body.slice(0, i).trim();
  const [codes, assumed] = body.slice(i + 2).split(";");
  const codeList = (codes ?? "")
    .split(",")
    .map((c) => c.trim())
    .filter((c) => c !== "");
  return {
    kind: "C_CODE_PHRASE",
    rmTypeName: "CODE_PHRASE",
    occurrences: { ...ONCE },
    nodeId: "",
    terminologyId,
    codeList,
    ...(assumed?.trim() ? { assumedValue: assumed.trim() } : {}),
  };
}

const toInterval = (raw: RawInterval | undefined): Interval | undefined =>
  raw === undefined
    ? undefined
    : {
        lowerIncluded: raw.lowerIncluded,
        upperIncluded: raw.upperIncluded,
        ...(typeof raw.lower === "number" ? { lower: raw.lower } : {}),
        ...(typeof raw.upper === "number" ? { upper: raw.upper } : {}),
      };

function readQuantity(s: Scanner): CDvQuantity {
  const block = readBlock(s) as OdinObject;
  const q: CDvQuantity = {
    kind: "C_DV_QUANTITY",
    rmTypeName: "DV_QUANTITY",
    occurrences: { ...ONCE },
    nodeId: "",
    list: [],
  };
  if (block.property instanceof CodeTerm)
    q.property = { terminologyId: block.property.terminology, code: block.property.code };
  const list = (block.list ?? {}) as OdinObject;
  for (const key of Object.keys(list)) {
    const item = list[key] as OdinObject;
    const units = item.units;
    if (typeof units !== "string") s.fail("a C_DV_QUANTITY item without units");
    const entry: QuantityItem = { units };
    if (item.magnitude instanceof OdinInterval)
      entry.magnitude = toInterval(item.magnitude.interval) as Interval;
    if (item.precision instanceof OdinInterval)
      entry.precision = toInterval(item.precision.interval) as Interval;
    q.list.push(entry);
  }
  return q;
}

function readAttribute(s: Scanner, ownerType: string): CAttribute {
  const rmAttributeName = s.identifier();
  const rm = rmClass(ownerType)?.attributes.get(rmAttributeName);
  let existence: Interval = {
    lower: rm?.required ? 1 : 0,
    upper: 1,
    lowerIncluded: true,
    upperIncluded: true,
  };
  if (s.acceptWord("existence")) {
    s.expect("matches");
    s.expect("{");
    existence = numericInterval(s, s.until("}"));
    s.expect("}");
  }
  const attr: CAttribute = { rmAttributeName, existence, children: [] };
  if (s.acceptWord("cardinality")) {
    s.expect("matches");
    s.expect("{");
    const [range, ...flags] = s
      .until("}")
      .split(";")
      .map((x) => x.trim());
    s.expect("}");
    attr.cardinality = {
      interval: numericInterval(s, range ?? ""),
      ordered: !flags.includes("unordered"),
      unique: flags.includes("unique"),
    };
  } else if (rm?.multiple) {
    attr.cardinality = {
      interval: { lower: 0, lowerIncluded: true, upperIncluded: false },
      ordered: true,
      unique: false,
    };
  }
  s.expect("matches");
  s.expect("{");
  while (s.peek() !== "}") {
    const c = s.peek();
    if (
      /[A-Z]/.test(c) &&
      !/^(True|False)\b/.test(s.text.slice(s.pos, s.pos + 6)) &&
      !isDatePattern(s) &&
      !isDuration(s)
    ) {
      attr.children.push(readObject(s));
    } else if (c === "[" || s.startsWith("allow_archetype") || s.startsWith("use_node")) {
      attr.children.push(readObject(s));
    } else if (/^\d+\s*\|\s*\[/.test(s.text.slice(s.pos, s.pos + 20))) {
      attr.children.push(readOrdinal(s));
    } else {
      attr.children.push(readPrimitive(s));
    }
  }
  s.expect("}");
  return attr;
}

const DATE_PATTERN = /^(yyyy|YYYY|hh|HH)[-:?XxmMdDhHsS.T]*/;
const isDatePattern = (s: Scanner): boolean => DATE_PATTERN.test(s.text.slice(s.pos, s.pos + 30));
/** `PT0S..PT1H`, `PYMWD` (a duration value or pattern, not an RM type such as PARTY_SELF). */
const isDuration = (s: Scanner): boolean =>
  /^-?P[YMWDTHS0-9]*(\s|\}|\/|,|\.\.|\|)/.test(s.text.slice(s.pos, s.pos + 40));

function readOrdinal(s: Scanner): CDvOrdinal {
  const o: CDvOrdinal = {
    kind: "C_DV_ORDINAL",
    rmTypeName: "DV_ORDINAL",
    occurrences: { ...ONCE },
    nodeId: "",
    list: [],
  };
  for (;;) {
    const m = /^(-?\d+)\s*\|\s*\[([^\]:]+)::([^\]]+)\]/.exec(s.text.slice(s.pos, s.pos + 200).trimStart());
    if (!m) break;
    s.skip();
    s.pos += m[0].length;
    o.list.push({
      value: Number(m[1]),
      terminologyId: (m[2] as string).trim(),
      code: (m[3] as string).trim(),
    });
    if (!s.accept(",")) break;
  }
  if (s.accept(";")) s.until("\n");
  return o;
}

const RM_PRIMITIVE: Record<CPrimitive["type"], string> = {
  C_STRING: "STRING",
  C_INTEGER: "INTEGER",
  C_REAL: "REAL",
  C_BOOLEAN: "BOOLEAN",
  C_DATE: "DATE",
  C_TIME: "TIME",
  C_DATE_TIME: "DATE_TIME",
  C_DURATION: "DURATION",
};

/** A primitive constraint: the whole inside of an attribute's `{...}`. */
function readPrimitive(s: Scanner): CPrimitiveObject {
  const raw = s
    .until("}")
    .replace(/\s*--[^\n]*/g, "")
    .trim();
  const [body = "", assumed] = splitAssumed(raw);
  const item = classifyPrimitive(s, body);
  void assumed;
  return {
    kind: "C_PRIMITIVE_OBJECT",
    rmTypeName: RM_PRIMITIVE[item.type],
    occurrences: { ...ONCE },
    nodeId: "",
    item,
  };
}

function splitAssumed(raw: string): [string, string | undefined] {
  if (raw.startsWith("/") || raw.startsWith('"')) return [raw, undefined];
  const i = raw.lastIndexOf(";");
  return i < 0 ? [raw, undefined] : [raw.slice(0, i).trim(), raw.slice(i + 1).trim()];
}

function classifyPrimitive(s: Scanner, body: string): CPrimitive {
  if (body === "*") return { type: "C_STRING" };
  if (body.startsWith("/")) return { type: "C_STRING", pattern: body.slice(1, body.lastIndexOf("/")) };
  if (body.startsWith('"')) {
    const list = [...body.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) =>
      (m[1] as string).replace(/\\(.)/g, "$1"),
    );
    return { type: "C_STRING", list };
  }
  if (/^(True|False)(\s*,\s*(True|False))?$/.test(body))
    return { type: "C_BOOLEAN", trueValid: body.includes("True"), falseValid: body.includes("False") };
  if (body.startsWith("|")) {
    const inner = body.slice(1, body.lastIndexOf("|"));
    const raw = parseIntervalBody(inner);
    const sample = String(raw.lower ?? raw.upper ?? "");
    if (/^-?P/.test(sample)) return { type: "C_DURATION", range: raw as Interval<string> };
    if (/^\d{4}-\d{2}-\d{2}T/.test(sample)) return { type: "C_DATE_TIME", range: raw as Interval<string> };
    if (/^\d{4}-\d{2}/.test(sample)) return { type: "C_DATE", range: raw as Interval<string> };
    const real = inner.includes(".") && /\d\.\d/.test(inner);
    return { type: real ? "C_REAL" : "C_INTEGER", range: toInterval(raw) as Interval };
  }
  if (/^-?P[YMWDTHS]*(\/.*)?$/.test(body) && !/\d/.test(body)) return { type: "C_DURATION", pattern: body };
  if (/^-?P/.test(body)) {
    const range = parseIntervalBody(body.replace(/^.*\//, "").replace(/^\||\|$/g, ""));
    return { type: "C_DURATION", range: range as Interval<string> };
  }
  if (/^(yyyy|YYYY)/.test(body))
    return { type: body.includes("T") ? "C_DATE_TIME" : "C_DATE", pattern: body };
  if (/^(hh|HH)/.test(body)) return { type: "C_TIME", pattern: body };
  if (/^-?\d+(\.\d+)?(\s*,\s*-?\d+(\.\d+)?)*$/.test(body)) {
    const list = body.split(",").map((x) => Number(x.trim()));
    return { type: body.includes(".") ? "C_REAL" : "C_INTEGER", list };
  }
  return s.fail(`unrecognised primitive constraint ${JSON.stringify(body)}`);
}
