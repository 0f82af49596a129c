// The whole openEHR check of one canonical JSON object: the ITS-JSON schema of its RM class, the RM rules,
// and, for a COMPOSITION, the operational template its archetype_details.template_id names.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { OperationalTemplate } from "../am/model.js";
import { readOpt } from "../opt/read.js";
import { OPENEHR_DIR } from "../rm/paths.js";
import { rmRuleViolations } from "./rm-rules.js";
import { rmSchemaViolations } from "./rm-schema.js";
import { TemplateChecker } from "./template.js";
import type { Violation } from "./types.js";

/** Directory of the operational templates shipped with the built-in crossmaps. */
export const BUILTIN_TEMPLATE_DIR = join(OPENEHR_DIR, "templates");

export function readOptFile(file: string): OperationalTemplate {
  try {
    return readOpt(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message}`);
  }
}

/**
 * The templates shipped in crossmaps/openehr/templates/ (`<template id>.opt`), each read only when a
 * composition names it: an OPT of the built-in crossmaps is 1.3 MB of XML.
 */
export function builtinTemplates(): Map<string, () => OperationalTemplate> {
  const out = new Map<string, () => OperationalTemplate>();
  for (const f of readdirSync(BUILTIN_TEMPLATE_DIR)
    .filter((x) => x.endsWith(".opt"))
    .sort()) {
    const id = f.slice(0, -".opt".length);
    out.set(id, () => {
      const t = readOptFile(join(BUILTIN_TEMPLATE_DIR, f));
      if (t.templateId !== id) throw new Error(`${f} holds template ${t.templateId}, not ${id}`);
      return t;
    });
  }
  return out;
}

export interface CheckResult {
  type: string;
  templateId?: string;
  violations: Violation[];
}

export class OpenehrValidator {
  private readonly sources = new Map<string, () => OperationalTemplate>();
  private readonly checkers = new Map<string, TemplateChecker>();

  /** Templates, or template id -> a function reading it (called once, when a composition first names it). */
  constructor(templates: OperationalTemplate[] | Map<string, () => OperationalTemplate>) {
    if (templates instanceof Map) for (const [id, read] of templates) this.sources.set(id, read);
    else for (const t of templates) this.sources.set(t.templateId, () => t);
  }

  get templateIds(): string[] {
    return [...this.sources.keys()];
  }

  private checker(templateId: string): TemplateChecker | undefined {
    let c = this.checkers.get(templateId);
    if (!c) {
      const read = this.sources.get(templateId);
      if (!read) return undefined;
      c = new TemplateChecker(read());
      this.checkers.set(templateId, c);
    }
    return c;
  }

  check(obj: unknown): CheckResult {
    const o = (obj ?? {}) as { _type?: unknown; archetype_details?: { template_id?: { value?: unknown } } };
    const type = typeof o._type === "string" ? o._type : "(no _type)";
    const violations = [...rmSchemaViolations(obj), ...rmRuleViolations(obj)];
    if (type !== "COMPOSITION") return { type, violations };
    const templateId = o.archetype_details?.template_id?.value;
    if (typeof templateId !== "string") {
      violations.push({
        severity: "error",
        code: "template_id",
        path: "archetype_details.template_id",
        message: "a COMPOSITION must name its operational template (archetype_details.template_id)",
      });
      return { type, violations };
    }
    const checker = this.checker(templateId);
    if (!checker)
      violations.push({
        severity: "error",
        code: "template_id",
        path: "archetype_details.template_id.value",
        message: `no template ${templateId} was given (templates: ${this.templateIds.join(", ") || "none"})`,
      });
    else violations.push(...checker.check(obj));
    return { type, templateId, violations };
  }
}
