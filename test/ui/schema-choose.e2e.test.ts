/// <reference lib="dom" />
// Choosing a schema item's candidate in a real headless chromium against a real server: the candidate
// list shows the keys, a reviewer presses 2, and the item, its history (in the page and through the API)
// and the crossmap export all carry the chosen table.column.
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Harness, itemPath, seedSchema, startHarness } from "../server/harness.js";
import { seriousViolations } from "../support/axe.js";
import { launchChromium } from "../support/chromium.js";
import { describeWithTool } from "../support/tool-suite.js";

const describeChromium = describeWithTool("chromium", import.meta.url);
const SHOTS = resolve(".tmp", "screenshots");

let h: Harness;
let browser: Browser;
let page: Page;
let ada: string;

/** A column pushed by `crossmap suggest --schema`: its suggestion is its first candidate. */
const column = (id: string, name: string, candidates: [string, string, number][]) => ({
  id,
  source_table: "patients",
  source_column: name,
  target_table: candidates[0]![0],
  target_column: candidates[0]![1],
  confidence: candidates[0]![2],
  status: "needs_review",
  candidates: candidates.map(([t, c, score]) => ({ target_table: t, target_column: c, score })),
});

const status = () => page.locator("p.status");

/** axe-core on the page as it is: no serious or critical violation. */
const axe = async () => expect(await seriousViolations(page)).toEqual([]);

describeChromium("choosing a schema item's candidate in chromium", () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness();
    ada = (await h.stores.write(() => h.stores.keys.create("write", h.projectId, "Dr. Ada"))).secret;
    await seedSchema(h, [
      column("s1", "dob", [
        ["person", "birth_datetime", 0.81],
        ["person", "year_of_birth", 0.64],
      ]),
      column("s2", "sex", [["person", "gender_source_value", 0.7]]),
    ]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  });
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it("shows the candidates with their keys, and the key list says 1-9 choose for schema items too", async () => {
    await page.goto(`${h.url}/ui/`);
    await page.getByLabel("API key").fill(ada);
    await page.keyboard.press("Enter");
    await page.getByRole("link", { name: "Schema items" }).click();
    await expect.poll(() => page.locator(".paging").textContent()).toBe("1–2 of 2");
    await page.locator("tbody tr[data-id='s1']").click();
    const list = page.getByRole("list", { name: "Candidates" });
    await expect
      .poll(() => list.locator("li").allTextContents())
      .toEqual(["1 person.birth_datetime 0.81", "2 person.year_of_birth 0.64"]);
    expect(await list.locator("li kbd").allTextContents()).toEqual(["1", "2"]);
    await axe();
    await page.screenshot({ path: join(SHOTS, "workbench-schema-candidates.png"), fullPage: true });
    await page.keyboard.press("?");
    const keys = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await keys.waitFor();
    expect(await keys.locator("tr", { hasText: "1-9" }).textContent()).toBe(
      "1-9choose that candidate of the current item, concept or schema (1 is the suggestion)",
    );
    await page.keyboard.press("Escape");
    await keys.waitFor({ state: "hidden" });
  });

  it("pressing 2 chooses the second: the item, its history and the export carry it", async () => {
    await page.locator("tbody tr[data-id='s1']").focus();
    await page.keyboard.press("3"); // there is no third: nothing happens
    await page.keyboard.press("2");
    await expect.poll(() => status().textContent()).toBe("Chose a candidate for s1 (version 2)");
    expect((await h.request("GET", itemPath(h, "schema", "s1"))).json).toMatchObject({
      status: "overridden",
      target_table: "person",
      target_column: "year_of_birth",
      version: 2,
    });
    const events = (
      (await h.request("GET", `${itemPath(h, "schema", "s1")}/history`)).json as {
        events: { action: string; reviewer: string | null; candidate?: number }[];
      }
    ).events;
    expect(events.map((e) => [e.action, e.reviewer, e.candidate])).toEqual([
      ["push_create", null, undefined],
      ["choose", "Dr. Ada", 2],
    ]);

    // The decision moved the page on to s2; back to s1 to read its detail.
    await page.locator("tbody tr[data-id='s1']").click();
    const detail = page.getByRole("complementary", { name: "Item detail" });
    await expect.poll(() => detail.locator(".history > li").count()).toBe(2);
    const entry = await detail.locator(".history > li").nth(1).textContent();
    expect(entry).toContain("choose candidate 2 v2 by Dr. Ada");
    expect(entry).toContain("status: needs_review → overridden");
    expect(entry).toContain("target_column: birth_datetime → year_of_birth");
    // The target now is marked, for screen readers too.
    expect(await detail.locator(".candidates li[aria-current='true']").allTextContents()).toEqual([
      "2 person.year_of_birth 0.64",
    ]);

    const exported = await h.request("GET", `/api/v1/projects/${h.projectId}/exports/crossmap?source=site`);
    expect(exported.status).toBe(200);
    expect(exported.text.slice(exported.text.indexOf("field_map:"))).toBe(
      ["field_map:", "  patients.dob:", "    target: person.year_of_birth", "    transform: int", ""].join(
        "\n",
      ),
    );
    await page.screenshot({ path: join(SHOTS, "workbench-schema-chosen.png"), fullPage: true });
  });
  it("a push that took the candidates away meanwhile: the 412 says mine cannot apply, and offers no re-apply", async () => {
    // s2 is shown at version 1 with one candidate; a new suggestion run pushes it again with none.
    const pushed = await h.request("POST", `/api/v1/sync/projects/${h.projectId}/schema-mappings/bulk`, {
      body: { items: [{ ...column("s2", "sex", [["person", "gender_source_value", 0.7]]), candidates: [] }] },
    });
    expect(pushed.json).toMatchObject({ updated: 1 });
    await page.locator("tbody tr[data-id='s2']").click();
    await page.keyboard.press("1");
    const dialog = page.getByRole("dialog", { name: "Someone else changed this item" });
    await dialog.waitFor();
    expect(await dialog.locator("p").allTextContents()).toEqual([
      // the push's key, which has no reviewer name
      expect.stringMatching(
        /^key_[0-9a-f]+ changed s2 to version 2 before your decision reached the server\.$/,
      ),
      "Their decision: needs_review: person.gender_source_value",
      "Yours: choose candidate 1",
      "Yours cannot be applied now: the item has no candidates now (you chose candidate 1). Keep theirs, then choose again or override the item.",
    ]);
    expect(await dialog.getByRole("button").allTextContents()).toEqual(["Keep theirs"]);
    await axe();
    await dialog.getByRole("button", { name: "Keep theirs" }).click();
    await expect.poll(() => status().textContent()).toBe("Kept the other reviewer's decision on s2");
    expect((await h.request("GET", itemPath(h, "schema", "s2"))).json).toMatchObject({
      status: "needs_review",
      candidates: [],
      version: 2,
    });
  });
});
