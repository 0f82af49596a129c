/// <reference lib="dom" />
// axe-core run in the page a browser test drives: the serious and critical accessibility violations of the
// page as it is, with the elements each one names, for a test to expect none of.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface Violation {
  id: string;
  impact: string;
  nodes: string[];
}

export async function seriousViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const r = await (
      window as unknown as {
        axe: {
          run: (
            c: Document,
          ) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe.run(document);
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => n.target.join(" ")),
    }));
  });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}
