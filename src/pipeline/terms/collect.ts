// Collects the distinct source terms of records as a standard's declaration says where they are
// (declaration.ts): each term's code, code system and description, how often it occurs and in which
// fields. What OHDSI Usagi takes as input, counted from the data itself.

import { ER7, isEr7Record } from "../../transforms/hl7v2-value.js";
import { foldText } from "../../vocab/search-text.js";
import { fieldLabel, type TermDeclaration, type TermEntry } from "./declaration.js";

export interface SourceTerm {
  source_code: string | null;
  source_description: string | null;
  /** The code system as an OMOP vocabulary_id when it is a known one, else as written (null: none). */
  source_vocabulary: string | null;
  /** Records (rows, resources, segments) holding the term. */
  frequency: number;
  /** Where it occurs: `Condition.code`, `OBX.3`, `measurement.measurement_source_value`. */
  fields: string[];
  /** The domains the declaration draws candidates from (empty: any). */
  domains: string[];
  /** The concept the source already names (OMOP *_source_concept_id), if any. */
  source_concept_id: number | null;
}

/** Distinct terms held at most; past it, new terms are counted in `dropped` and left out. */
export const MAX_TERMS = 1_000_000;
/** Descriptions counted per code: the most frequent one describes the term. */
const MAX_DESCRIPTIONS = 16;

interface Tally {
  term: SourceTerm;
  descriptions: Map<string, number>;
  fields: Set<string>;
  domains: Set<string>;
}

interface CompiledEntry {
  entry: TermEntry;
  label: string;
  at: string[] | undefined;
  codings: string[] | undefined;
  code: string[] | undefined;
  system: string[] | undefined;
  description: string[] | undefined;
  text: string[] | undefined;
  sourceConcept: string[] | undefined;
  when: { field: string[]; values: Set<string> } | undefined;
}

const steps = (p: string | undefined) => (p === undefined ? undefined : p.split("."));

export class TermCollector {
  private readonly byEntity = new Map<string, CompiledEntry[]>();
  private readonly tallies = new Map<string, Tally>();
  /** Records read per entity, and terms left out past MAX_TERMS. */
  readonly records = new Map<string, number>();
  dropped = 0;

  constructor(
    readonly declaration: TermDeclaration,
    /** A code system as written -> OMOP vocabulary_id, when known (src/vocab/systems.ts). */
    private readonly vocabularyFor: (system: string) => string | undefined,
  ) {
    for (const entry of declaration.terms) {
      const list = this.byEntity.get(entry.entity) ?? [];
      list.push({
        entry,
        label: fieldLabel(entry),
        at: steps(entry.at),
        codings: steps(entry.codings),
        code: steps(entry.code),
        system: steps(entry.system),
        description: steps(entry.description),
        text: steps(entry.text),
        sourceConcept: steps(entry.source_concept),
        when: entry.when && { field: entry.when.field.split("."), values: new Set(entry.when.in) },
      });
      this.byEntity.set(entry.entity, list);
    }
  }

  /** The entities the declaration names, as written in it. */
  get entities(): string[] {
    return [...this.byEntity.keys()];
  }

  /** Finds the declared entity a name means, ignoring case (`MEASUREMENT.csv` is `measurement`). */
  entityNamed(name: string): string | undefined {
    const lower = name.toLowerCase();
    return this.entities.find((e) => e.toLowerCase() === lower);
  }

  /** Counts the terms of one record of `entity`. */
  add(entity: string, record: object): void {
    this.records.set(entity, (this.records.get(entity) ?? 0) + 1);
    const entries = this.byEntity.get(entity);
    if (!entries) return;
    const er7 = isEr7Record(record);
    const seen = new Set<string>();
    for (const c of entries) {
      if (c.when && !walk(record, c.when.field, er7).some((v) => c.when!.values.has(leaf(v) ?? ""))) continue;
      const sourceConcept = c.sourceConcept ? conceptId(walk(record, c.sourceConcept, er7)[0]) : null;
      const elements = c.at ? walk(record, c.at, er7) : [record];
      for (const element of elements) {
        const text = c.text ? leaf(walk(element, c.text, er7)[0]) : undefined;
        const codings = c.codings ? walk(element, c.codings, er7) : [element];
        let any = false;
        for (const coding of codings) {
          const code = c.code ? leaf(walk(coding, c.code, er7)[0]) : undefined;
          const description = (c.description ? leaf(walk(coding, c.description, er7)[0]) : undefined) ?? text;
          if (code === undefined && description === undefined) continue;
          any = true;
          const system = c.system ? leaf(walk(coding, c.system, er7)[0]) : c.entry.system_value;
          this.count(c.label, c.entry.domains, seen, 1, code, system, description, sourceConcept);
        }
        if (!any && text !== undefined) {
          this.count(c.label, c.entry.domains, seen, 1, undefined, undefined, text, null);
        }
      }
    }
  }

  /** One term of a site's term list (a row of `--csv`), occurring `frequency` times. */
  addTerm(t: {
    code?: string | undefined;
    system?: string | undefined;
    description?: string | undefined;
    frequency: number;
    field: string;
    domains?: readonly string[] | undefined;
  }): void {
    if (t.code === undefined && t.description === undefined) return;
    this.count(t.field, t.domains, undefined, t.frequency, t.code, t.system, t.description, null);
  }

  private count(
    label: string,
    domains: readonly string[] | undefined,
    seen: Set<string> | undefined,
    times: number,
    code: string | undefined,
    system: string | undefined,
    description: string | undefined,
    sourceConcept: number | null,
  ): void {
    const vocabulary = system === undefined ? null : (this.vocabularyFor(system) ?? system);
    const key =
      code !== undefined
        ? `c\u0000${vocabulary ?? ""}\u0000${code}`
        : `t\u0000${foldText(description ?? "")}`;
    let tally = this.tallies.get(key);
    if (!tally) {
      if (this.tallies.size >= MAX_TERMS) {
        this.dropped++;
        return;
      }
      tally = {
        term: {
          source_code: code ?? null,
          source_description: null,
          source_vocabulary: vocabulary,
          frequency: 0,
          fields: [],
          domains: [],
          source_concept_id: null,
        },
        descriptions: new Map(),
        fields: new Set(),
        domains: new Set(),
      };
      this.tallies.set(key, tally);
    }
    if (!seen) tally.term.frequency += times;
    else if (!seen.has(key)) {
      seen.add(key);
      tally.term.frequency += times;
    }
    tally.fields.add(label);
    for (const d of domains ?? []) tally.domains.add(d);
    if (sourceConcept !== null && tally.term.source_concept_id === null)
      tally.term.source_concept_id = sourceConcept;
    if (description !== undefined) {
      const n = tally.descriptions.get(description);
      if (n !== undefined) tally.descriptions.set(description, n + 1);
      else if (tally.descriptions.size < MAX_DESCRIPTIONS) tally.descriptions.set(description, 1);
    }
  }

  /** The distinct terms, most frequent first (then by code and description, so the order is stable). */
  terms(): SourceTerm[] {
    const out: SourceTerm[] = [];
    for (const t of this.tallies.values()) {
      let best: string | null = null;
      let most = 0;
      for (const [d, n] of t.descriptions) {
        if (n > most) {
          best = d;
          most = n;
        }
      }
      out.push({
        ...t.term,
        source_description: best,
        fields: [...t.fields].sort(),
        domains: [...t.domains].sort(),
      });
    }
    const text = (s: string | null) => s ?? "";
    return out.sort(
      (a, b) =>
        b.frequency - a.frequency ||
        compare(text(a.source_vocabulary), text(b.source_vocabulary)) ||
        compare(text(a.source_code), text(b.source_code)) ||
        compare(text(a.source_description), text(b.source_description)),
    );
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The values at a path: lists are walked (every element), and in HL7 v2 records a field read with its
 * repetitions (`OBX.3` holds `A~B`) gives each repetition; a plain value read for its first component
 * (`PID.8.1` of `M`) is the value itself, as ER7 writes a one-component field without separators.
 */
export function walk(value: unknown, path: readonly string[], er7: boolean): unknown[] {
  let current: unknown[] = [value];
  for (const step of path) {
    const next: unknown[] = [];
    for (const v of current.flatMap(flat)) {
      if (v === null || v === undefined) continue;
      if (typeof v !== "object") {
        if (er7 && step === "1") next.push(v);
        continue;
      }
      const got = (v as Record<string, unknown>)[step];
      if (er7 && got !== null && typeof got === "object" && ER7 in got) next.push(...repetitions(got));
      else next.push(got);
    }
    current = next;
  }
  return current.flatMap(flat).filter((v) => v !== null && v !== undefined);
}

const flat = (v: unknown): unknown[] => (Array.isArray(v) ? v.flatMap(flat) : [v]);

/** The repetitions of an ER7 field node (a node holds its first repetition's components). */
function repetitions(node: object): unknown[] {
  const split = (node as Record<symbol, string[][][]>)[ER7];
  if (!split || split.length <= 1) return [node];
  return split.map((rep) => {
    const n: Record<string, unknown> = {};
    for (let i = 0; i < rep.length; i++) {
      const c = rep[i]!;
      const text = c.join("&");
      if (text !== "") n[String(i + 1)] = c.length === 1 ? c[0] : text;
    }
    return n;
  });
}

/** A leaf value as text: strings trimmed, numbers as written; anything else (objects, empty) is none. */
function leaf(v: unknown): string | undefined {
  if (typeof v === "string") {
    const t = v.trim();
    return t === "" ? undefined : t;
  }
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  return undefined;
}

/** A concept id worth looking up: a whole number above 0 (OMOP writes 0 for "no concept"). */
function conceptId(v: unknown): number | null {
  const n =
    typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v.trim()) ? Number(v) : Number.NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}
