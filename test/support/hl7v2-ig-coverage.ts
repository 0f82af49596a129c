// Coverage of the built-in HL7 v2 -> FHIR crossmap against the v2-to-FHIR IG's own message maps: each row of
// an IG message map (message structure x segment -> resource) is checked on a test message holding that
// segment (test/fixtures/hl7v2/ig-coverage/): does the crossmap produce that resource from it?
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Crossmap } from "../../src/crossmap/crossmap.js";
import { convertText } from "../../src/pipeline/hl7v2/index.js";

export interface IgRow {
  /** The IG message map's name: ADT_A01, ORU_R01 ... */
  message: string;
  segment: string;
  /** The IG's computable condition, without its leading IF; "" when none. */
  condition: string;
  resource: string;
}

/** RFC 4180 CSV, as the IG's sheets are written (quoted fields hold commas and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else if (c !== "\r") field += c;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
}

/** The rows of every IG message map in `dir`, in the IG's order, one per (segment, condition, resource). */
export function igRows(dir: string): IgRow[] {
  const out: IgRow[] = [];
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith(".csv"))
    .sort()) {
    const message = /R4_ (\w+) -/.exec(f)?.[1];
    if (!message) continue;
    const seen = new Set<string>();
    // Two header lines; then: sort order, identifier, syntax ([ { NTE } ]), name, min, max, condition, ...,
    // primary target (column 10: "Patient[1]").
    for (const r of parseCsv(readFileSync(join(dir, f), "utf8")).slice(2)) {
      const segment = (r[2] ?? "").replace(/[[\]{} ]/g, "");
      const resource = (r[9] ?? "").trim().replace(/\[.*$/s, "");
      if (!/^[A-Z][A-Z0-9]{2}$/.test(segment) || !/^[A-Z][A-Za-z]+$/.test(resource)) continue;
      const condition = (r[6] ?? "").replace(/\s+/g, " ").trim().replace(/^IF /i, "");
      const key = `${segment}|${condition}|${resource}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ message, segment, condition, resource });
    }
  }
  return out;
}

type Json = unknown;

/** A resource without what changes with segment positions (ids, references): what the segments wrote. */
function content(v: Json): Json {
  if (Array.isArray(v)) {
    const items = v.map(content).filter((x) => x !== undefined);
    return items.length ? items : undefined;
  }
  if (v !== null && typeof v === "object") {
    const out: Record<string, Json> = {};
    for (const k of Object.keys(v).sort()) {
      if (k === "id" || k === "reference" || k === "meta" || k === "fullUrl") continue;
      const c = content((v as Record<string, Json>)[k]);
      if (c !== undefined) out[k] = c;
    }
    return Object.keys(out).length ? out : undefined;
  }
  if (typeof v === "string" && v.startsWith("urn:uuid:")) return undefined;
  return v;
}

interface Bundle {
  identifier?: unknown;
  entry?: { resource: Record<string, unknown> }[];
}

function bundleOf(text: string, cm: Crossmap, file: string): Bundle {
  const [r] = [...convertText(text, cm, { file })];
  if (!r?.ok) throw new Error(`${file} is malformed`);
  return r.bundle as Bundle;
}

function resourcesOf(b: Bundle, type: string): string[] {
  return (b.entry ?? [])
    .filter((e) => e.resource.resourceType === type)
    .map((e) => JSON.stringify(content(e.resource)))
    .sort();
}

/**
 * Does the crossmap produce `resource` from `segment` in this message? MSH is the message itself: the
 * resource (or the Bundle's identifier) is made from the MSH alone. Any other segment: the resources of that type differ,
 * ids and references aside, from those of the same message without that segment (every one of its type
 * taken out), so a segment counts whether it makes the resource or writes into one another segment makes
 * (an AIP into the Appointment), and not when the resource only points at it.
 */
export function produces(
  cm: Crossmap,
  text: string,
  file: string,
  segment: string,
  resource: string,
): boolean {
  const lines = text.split("\r").filter((l) => l !== "");
  if (segment === "MSH") {
    const alone = bundleOf(`${lines[0]}\r`, cm, file);
    return resource === "Bundle" ? alone.identifier !== undefined : resourcesOf(alone, resource).length > 0;
  }
  const full = bundleOf(text, cm, file);
  if (!lines.some((l) => l.startsWith(`${segment}|`))) return false;
  const without = bundleOf(`${lines.filter((l) => !l.startsWith(`${segment}|`)).join("\r")}\r`, cm, file);
  return JSON.stringify(resourcesOf(full, resource)) !== JSON.stringify(resourcesOf(without, resource));
}

/** Why a row the crossmap does not produce is left so; the first whose fields all match wins. */
export interface Reason {
  message?: RegExp;
  segment: string;
  resource: string;
  condition?: RegExp;
  why: string;
}

export interface IgCoverage extends IgRow {
  /** The test message that shows it, when produced. */
  shownBy?: string;
  why?: string;
}

/** Each IG row, checked on the fixtures named `<message>.hl7` or `<message>-<variant>.hl7` in `dir`. */
export function igCoverage(rows: IgRow[], cm: Crossmap, dir: string, reasons: Reason[]): IgCoverage[] {
  const files = readdirSync(dir)
    .filter((n) => n.endsWith(".hl7"))
    .sort();
  const texts = new Map(files.map((f) => [f, readFileSync(join(dir, f), "utf8").replace(/\r?\n/g, "\r")]));
  const memo = new Map<string, boolean>();
  return rows.map((row) => {
    const mine = files.filter((f) => f === `${row.message}.hl7` || f.startsWith(`${row.message}-`));
    const shownBy = mine.find((f) => {
      const key = `${f}|${row.segment}|${row.resource}`;
      let v = memo.get(key);
      if (v === undefined) {
        v = produces(cm, texts.get(f) ?? "", f, row.segment, row.resource);
        memo.set(key, v);
      }
      return v;
    });
    if (shownBy) return { ...row, shownBy };
    const reason = reasons.find(
      (r) =>
        r.segment === row.segment &&
        r.resource === row.resource &&
        (!r.message || r.message.test(row.message)) &&
        (!r.condition || r.condition.test(row.condition)),
    );
    return { ...row, why: reason?.why };
  });
}

const cell = (s: string) => s.replace(/\|/g, "\\|");

/** The markdown table docs/hl7v2.md holds between the ig-coverage markers. */
export function igCoverageTable(rows: IgCoverage[]): string {
  const produced = rows.filter((r) => r.shownBy).length;
  return [
    `${produced} of ${rows.length} rows produced on a test message; the rest not, each with its reason.`,
    "",
    "| IG message | segment | IG condition | resource | crossmap |",
    "|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.message} | ${r.segment} | ${cell(r.condition)} | ${r.resource} | ${
          r.shownBy ? `yes (\`${r.shownBy}\`)` : `no: ${cell(r.why ?? "NO REASON GIVEN")}`
        } |`,
    ),
  ].join("\n");
}
