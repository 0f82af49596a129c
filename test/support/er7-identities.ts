// What the HL7 v2 samples say about identity, read from the ER7 text itself (not through any crossmap), for
// tests that check what a FHIR server ends up holding: distinct patients (PID-3), visit numbers (PV1-19).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { splitMessages } from "../../src/pipeline/hl7v2/split.js";

export interface SampleMessage {
  file: string;
  /** The message's segments joined with CR, as a sender writes it. */
  text: string;
  segments: string[];
}

/** Every message of every `.hl7` file in `dir`, in file order. */
export function sampleMessages(dir: string): SampleMessage[] {
  const out: SampleMessage[] = [];
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith(".hl7"))
    .sort()) {
    for (const raw of splitMessages(readFileSync(join(dir, name), "utf8"))) {
      out.push({ file: name, text: raw.segments.join("\r"), segments: raw.segments });
    }
  }
  return out;
}

/** A seeded shuffle (mulberry32), so a failing order can be replayed. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  let a = seed >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

interface Delimiters {
  field: string;
  component: string;
  repetition: string;
}

function delimiters(msh: string): Delimiters {
  return { field: msh[3] ?? "|", component: msh[4] ?? "^", repetition: msh[5] ?? "~" };
}

/** Field `n` of a segment (MSH counted as HL7 does: MSH-1 is the field separator). */
function field(segment: string, n: number, d: Delimiters): string {
  const parts = segment.split(d.field);
  return (segment.startsWith("MSH") ? parts[n - 1] : parts[n]) ?? "";
}

/**
 * The identifiers of a CX field, one per repetition: `<id>|<assigning authority>`; an identifier sent with no
 * assigning authority is scoped by the sending facility (MSH-4), as "the same sender" in issue 29 says.
 */
function cxKeys(value: string, d: Delimiters, sender: string): string[] {
  return value
    .split(d.repetition)
    .map((rep) => rep.split(d.component))
    .filter((c) => (c[0] ?? "") !== "")
    .map((c) => `${c[0]}|${c[3] || `sender:${sender}`}`);
}

/**
 * Distinct patients: two messages are about one patient when their PID-3 lists share an identifier (ID
 * number and assigning authority), transitively. A message without PID-3 identifiers is a patient of its own.
 */
export function distinctPatients(messages: readonly SampleMessage[]): number {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r) as string;
    parent.set(x, r);
    return r;
  };
  const add = (x: string) => {
    if (!parent.has(x)) parent.set(x, x);
  };
  messages.forEach((m, i) => {
    const msh = m.segments[0] ?? "";
    const d = delimiters(msh);
    const sender = field(msh, 4, d);
    for (const pid of m.segments.filter((s) => s.startsWith(`PID${d.field}`))) {
      const keys = cxKeys(field(pid, 3, d), d, sender);
      if (keys.length === 0) keys.push(`message:${i}`);
      for (const k of keys) add(k);
      for (const k of keys.slice(1)) parent.set(find(k), find(keys[0] as string));
    }
  });
  return new Set([...parent.keys()].map(find)).size;
}

/** Distinct visit numbers (PV1-19: ID number and assigning authority, scoped by sender without one). */
export function visitNumbers(messages: readonly SampleMessage[]): string[] {
  const out = new Set<string>();
  for (const m of messages) {
    const msh = m.segments[0] ?? "";
    const d = delimiters(msh);
    for (const pv1 of m.segments.filter((s) => s.startsWith(`PV1${d.field}`))) {
      for (const k of cxKeys(field(pv1, 19, d), d, field(msh, 4, d))) out.add(k);
    }
  }
  return [...out].sort();
}
