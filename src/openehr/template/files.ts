// The template build over files: template specs (`templates/*.template.yaml`) and the ADL 1.4 archetypes they
// name (`archetypes/<archetype id>.adl`) in, OPT 1.4 XML (`templates/<template id>.opt`) out.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { type Archetype, parseArchetype } from "../adl/archetype.js";
import { writeOpt } from "../opt/write.js";
import { type ArchetypeSource, buildTemplate, type TemplateSpec } from "./build.js";

export function archetypeDir(dir: string): ArchetypeSource {
  const cache = new Map<string, Archetype>();
  return (id) => {
    let a = cache.get(id);
    if (!a) {
      const file = join(dir, `${id}.adl`);
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch {
        throw new Error(`archetype ${id} is not in ${dir}`);
      }
      a = parseArchetype(text, file);
      if (a.archetypeId !== id) throw new Error(`${file} holds ${a.archetypeId}, not ${id}`);
      cache.set(id, a);
    }
    return a;
  };
}

/** A name-based UUID (SHA-1, version 5 layout) of the template id, so a rebuilt OPT keeps its uid. */
function templateUid(templateId: string): string {
  const h = createHash("sha1").update(`crossmap-openehr-template:${templateId}`).digest();
  h[6] = ((h[6] as number) & 0x0f) | 0x50;
  h[8] = ((h[8] as number) & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

export interface BuiltTemplate {
  /** File name inside templates/, e.g. "crossmap.encounter.v1.opt". */
  file: string;
  templateId: string;
  xml: string;
}

/** Every template of `<openehrDir>/templates/*.template.yaml`, built from `<openehrDir>/archetypes/`. */
export function buildTemplateFiles(openehrDir: string): BuiltTemplate[] {
  const source = archetypeDir(join(openehrDir, "archetypes"));
  const dir = join(openehrDir, "templates");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".template.yaml"))
    .sort()
    .map((f) => {
      const spec = parse(readFileSync(join(dir, f), "utf8")) as TemplateSpec;
      const t = buildTemplate(spec, source);
      t.uid = templateUid(t.templateId);
      return { file: `${t.templateId}.opt`, templateId: t.templateId, xml: writeOpt(t) };
    });
}
