// Test helper: HL7 v2 messages written in a test (segments joined by CR) through the built-in HL7 v2 -> FHIR
// crossmap, as `crossmap map --format hl7v2` maps them.
import { beforeAll } from "vitest";
import { findBuiltinCrossmap } from "../../src/crossmap/catalog.js";
import type { Crossmap } from "../../src/crossmap/crossmap.js";
import { loadCrossmapFile } from "../../src/crossmap/load.js";
import type { MappingIssue, TargetRecord } from "../../src/crossmap/types.js";
import { type ConvertOptions, type ConvertResult, convertText } from "../../src/pipeline/hl7v2/index.js";

let builtin: Promise<Crossmap> | undefined;

/** The built-in HL7 v2.5.1 -> FHIR R4 crossmap, loaded once per test file. */
export function hl7v2Crossmap(): Promise<Crossmap> {
  builtin ??= loadCrossmapFile(findBuiltinCrossmap("hl7v2_2.5.1", "fhir_r4")?.path ?? "");
  return builtin;
}

export interface Mapped {
  bundle: TargetRecord;
  resources: TargetRecord[];
  issues: MappingIssue[];
  /** The resources of one type, in Bundle order. */
  of(type: string): TargetRecord[];
}

/** Maps one message given as segment lines; throws when it is malformed. */
export async function mapMessage(segments: readonly string[], options: ConvertOptions = {}): Promise<Mapped> {
  const results = [...convertText(segments.join("\r"), await hl7v2Crossmap(), { file: "t.hl7", ...options })];
  const r = results[0] as ConvertResult;
  if (results.length !== 1 || !r.ok)
    throw new Error(`not one well-formed message: ${JSON.stringify(results)}`);
  return {
    bundle: r.bundle,
    resources: r.resources,
    issues: r.issues,
    of: (type) => r.resources.filter((x) => x.resourceType === type),
  };
}

/** Issues as [code, severity, message] triples, for exact assertions. */
export const issueLines = (issues: readonly MappingIssue[]): [string, string, string][] =>
  issues.map((i) => [i.code, i.severity, i.message]);

export type Entry = { fullUrl: string; resource: TargetRecord & { resourceType: string; id: string } };

export interface NamedBundles {
  /** Each message's Bundle entries, by the message's name. */
  bundles: Map<string, Entry[]>;
  /** The entries of one resource type in one message's Bundle, in Bundle order. */
  of(name: string, type: string): Entry[];
  /** The fullUrl of the PractitionerRole (of a ROL or PRT) whose person has the id `person`. */
  roleOf(name: string, person: string): string | undefined;
}

/**
 * Maps messages given by name (segments joined by CR) in the test file's `beforeAll`; each must be
 * well-formed and without error issues. The accessors read the Bundles once they are made.
 */
export function namedMessages(messages: Record<string, string>): NamedBundles {
  const bundles = new Map<string, Entry[]>();
  beforeAll(async () => {
    const crossmap = await hl7v2Crossmap();
    for (const [name, text] of Object.entries(messages)) {
      const [r] = [...convertText(text, crossmap, { file: `${name}.hl7` })] as [ConvertResult];
      if (!r.ok) throw new Error(`${name} is malformed`);
      const errors = r.issues.filter((i) => i.severity === "error");
      if (errors.length > 0) throw new Error(`${name}: ${JSON.stringify(errors)}`);
      bundles.set(name, (r.bundle.entry ?? []) as Entry[]);
    }
  });
  const of = (name: string, type: string): Entry[] =>
    (bundles.get(name) ?? []).filter((e) => e.resource.resourceType === type);
  return {
    bundles,
    of,
    roleOf: (name, person) =>
      of(name, "PractitionerRole").find((e) =>
        JSON.stringify(e.resource.practitioner).includes(`"${person}"`),
      )?.fullUrl,
  };
}
