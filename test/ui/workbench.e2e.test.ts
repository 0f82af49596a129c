/// <reference lib="dom" />
// The review workbench in a real headless browser (Debian's chromium driven by playwright-core) against a
// real server on a real port: a reviewer signs in, filters, decides by keyboard, overrides by concept
// search, bulk-approves, reads history, undoes, meets a 412; every change is checked through the API, and
// axe-core checks each view. Screenshots go to .tmp/screenshots/ for a person to look at.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildVocabulary } from "../../src/vocab/build.js";
import { type LmdbVocabularyBridge, openVocabulary } from "../../src/vocab/lmdb-bridge.js";
import { type Harness, itemPath, seedConcept, seedSchema, startHarness } from "../server/harness.js";
import { seriousViolations } from "../support/axe.js";
import { launchChromium } from "../support/chromium.js";
import { describeWithTool } from "../support/tool-suite.js";

// Debian's chromium (or CHROMIUM=path); without it the file is skipped and the run's closing lines say so.
const describeChromium = describeWithTool("chromium", import.meta.url);
const SHOTS = resolve(".tmp", "screenshots");

let h: Harness;
let bridge: LmdbVocabularyBridge;
let browser: Browser;
let page: Page;
let ada: string;
let bo: string;
let dir: string;

const concept = (
  id: string,
  code: string,
  description: string,
  target: [number, string] | null,
  confidence: number,
  method: string,
  frequency: number,
) => ({
  id,
  source_column: "diagnosis_code",
  source_code: code,
  source_description: description,
  target_concept_id: target?.[0] ?? null,
  target_concept_name: target?.[1] ?? null,
  target_vocabulary_id: target ? "SNOMED" : null,
  confidence,
  method,
  source_vocabulary_id: "ICD10CM",
  source_frequency: frequency,
});

interface ConceptItem {
  id: string;
  method: string;
  version: number;
  target_concept_id: number | null;
  target_concept_name: string | null;
  target_vocabulary_id: string | null;
  comment: string | null;
}

const item = async (id: string, kind: "concept" | "schema" = "concept") =>
  (await h.request("GET", itemPath(h, kind, id))).json as ConceptItem & Record<string, unknown>;
const history = async (id: string) =>
  (
    (await h.request("GET", `${itemPath(h, "concept", id)}/history`)).json as {
      events: { action: string; reviewer: string | null; version: number; reverted_to?: number }[];
    }
  ).events.map(
    (e) => `${e.action} ${e.reviewer ?? "-"} v${e.version}${e.reverted_to ? ` to ${e.reverted_to}` : ""}`,
  );

/** axe-core on the page as it is: no serious or critical violation. */
const axe = async (view: string) =>
  expect({ view, bad: await seriousViolations(page) }).toEqual({ view, bad: [] });

const shot = (name: string) =>
  page.screenshot({ path: join(SHOTS, `workbench-${name}.png`), fullPage: true });
const status = () => page.locator("p.status");
const paging = () => page.locator(".paging");

describeChromium("the review workbench in chromium", () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    dir = mkdtempSync(join(tmpdir(), "crossmap-ui-"));
    await buildVocabulary({ sourceDir: resolve("vocab"), outDir: join(dir, "index") });
    bridge = openVocabulary(join(dir, "index"));
    h = await startHarness({ vocabulary: bridge });
    const keys = await h.stores.write(() => [
      h.stores.keys.create("write", h.projectId, "Dr. Ada").secret,
      h.stores.keys.create("write", h.projectId, "Dr. Bo").secret,
    ]);
    [ada, bo] = keys as [string, string];
    await seedConcept(h, [
      concept("c01", "E11.9", "Type 2 diabetes", [201826, "Type 2 diabetes mellitus"], 0.97, "review", 500),
      concept("c02", "J20.9", "Acute bronchitis", [260139, "Acute bronchitis"], 0.96, "review", 300),
      concept("c03", "R05", "Cough", [254761, "Cough"], 0.91, "review", 200),
      concept("c04", "M81.0", "Osteoporosis", [80502, "Osteoporosis"], 0.88, "review", 100),
      concept("c05", "J02.0", "Strep throat", null, 0.4, "review", 50),
      concept("c06", "N30.0", "Cystitis", [195588, "Cystitis"], 0.99, "review", 80),
      concept("c07", "L20.9", "Eczema", [133834, "Atopic dermatitis"], 0.6, "auto", 10),
      concept("c08", "S93.4", "Sprained ankle", [81151, "Sprain of ankle"], 0.98, "review", 40),
    ]);
    await seedSchema(h, [
      {
        id: "s1",
        source_table: "patients",
        source_column: "sex",
        target_table: "person",
        target_column: "gender_source_value",
        confidence: 0.7,
        status: "needs_review",
      },
    ]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  });
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
    await bridge?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("serves the page with a policy that allows nothing but this server", async () => {
    const r = await h.request("GET", "/ui/", { key: null });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(r.headers.get("content-security-policy")).toContain("default-src 'none'; script-src 'self'");
    expect(r.text).toContain('<script type="module" src="app.js"></script>');
    expect((await h.request("GET", "/ui/../package.json", { key: null })).status).toBe(404);
  });

  it("signs in with a key kept in sessionStorage and lists the projects it may read", async () => {
    const requests: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    await page.goto(`${h.url}/ui/`);
    await axe("sign-in");
    await shot("sign-in");
    await page.getByLabel("API key").fill("cmk_wrong");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("This key is not valid");
    await page.getByLabel("API key").fill(ada);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    expect(await page.locator(".who").textContent()).toBe("Signed in as Dr. Ada");
    expect(await page.locator(".projects li").allTextContents()).toEqual([
      "test (write) Concept items Schema items",
    ]);
    expect(await page.evaluate(() => sessionStorage.getItem("crossmap.key"))).toBe(ada);
    expect(await page.evaluate(() => localStorage.length + document.cookie.length)).toBe(0);
    // The key never travels in a URL, and nothing is fetched from anywhere but this server.
    expect(requests.filter((u) => u.includes(ada))).toEqual([]);
    expect(requests.filter((u) => !u.startsWith(h.url))).toEqual([]);
    await axe("projects");
    await shot("projects");
  });

  it("filters to items awaiting review and approves three with the keyboard", async () => {
    await page.getByRole("link", { name: "Concept items" }).click();
    await expect.poll(() => paging().textContent()).toBe("1–8 of 8");
    await page.getByLabel("Awaiting review only").check();
    await expect.poll(() => paging().textContent()).toBe("1–7 of 7");
    // sorted by source frequency, highest first
    expect(
      await page.locator("tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-id"))),
    ).toEqual(["c01", "c02", "c03", "c04", "c06", "c05", "c08"]);
    await page.locator("tbody tr[tabindex='0']").focus();
    await page.keyboard.press("a");
    await expect.poll(() => status().textContent()).toBe("Approved c01 (version 2)");
    await page.keyboard.press("a");
    await expect.poll(() => status().textContent()).toBe("Approved c02 (version 2)");
    await page.keyboard.press("a");
    await expect.poll(() => status().textContent()).toBe("Approved c03 (version 2)");
    for (const id of ["c01", "c02", "c03"]) {
      expect(await item(id)).toMatchObject({ method: "auto", version: 2 });
      expect(await history(id)).toEqual(["push_create - v1", "approve Dr. Ada v2"]);
    }
    expect(await item("c04")).toMatchObject({ method: "review", version: 1 });
    // the focus is on the next item, visibly
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-id"))).toBe("c04");
    expect(await page.locator(".progress").textContent()).toContain("Reviewed 3 of 8 (37.5%)");
    await axe("concept items");
    await shot("concept-items");
  });

  it("overrides a concept item by searching a concept by name, and comments on it", async () => {
    await page.keyboard.press("j"); // c06
    await page.keyboard.press("j"); // c05
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-id"))).toBe("c05");
    await page.keyboard.press("o");
    await page.getByRole("dialog", { name: "Override J02.0" }).waitFor();
    // The search starts from the source's own text, selected, so typing replaces it.
    expect(await page.getByLabel("Search concepts by name, code or id").inputValue()).toBe("Strep throat");
    await expect.poll(() => page.getByRole("option").count()).toBeGreaterThan(0);
    await page.keyboard.type("streptococcal sore");
    await page.getByRole("option", { name: /Streptococcal sore throat/ }).waitFor();
    await axe("concept search");
    await shot("concept-search");
    await page.keyboard.press("Enter");
    await expect.poll(() => status().textContent()).toBe("Overrode c05 (version 2)");
    expect(await item("c05")).toMatchObject({
      method: "override",
      target_concept_id: 28060,
      target_concept_name: "Streptococcal sore throat",
      target_vocabulary_id: "SNOMED",
    });
    // the decision moved on to the next item, c08; back to c05
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-id"))).toBe("c08");
    await page.keyboard.press("k");
    await page.keyboard.press("c");
    await page.getByRole("dialog", { name: "Comment on c05" }).waitFor();
    await page.keyboard.type("Culture confirmed");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await expect.poll(() => status().textContent()).toBe("Commented on c05 (version 3)");
    expect(await item("c05")).toMatchObject({ comment: "Culture confirmed", version: 3 });
  });

  it("shows the item's history with who changed what, at the reader's local time", async () => {
    await expect.poll(() => page.locator(".history > li").count()).toBe(3);
    const entries = await page.locator(".history > li").allTextContents();
    const times = await page
      .locator(".history time")
      .evaluateAll((ts) => ts.map((t) => [t.getAttribute("datetime"), t.textContent]));
    for (const [iso, shown] of times) {
      const local = await page.evaluate(
        (at) =>
          new Date(at as string).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" }),
        iso,
      );
      expect([iso, shown]).toEqual([iso, local]);
      expect(shown).not.toContain("T");
    }
    expect(entries[1]).toContain("override v2 by Dr. Ada");
    expect(entries[1]).toContain("method: review → override");
    expect(entries[1]).toContain("target_concept_id: — → 28060");
    expect(entries[2]).toContain("comment v3 by Dr. Ada");
    expect(entries[2]).toContain("comment: — → Culture confirmed");
    await shot("history");
  });

  it("undoes the last decision with u, as a new audited decision", async () => {
    await page.keyboard.press("u");
    await expect
      .poll(() => status().textContent())
      .toBe("Undid the decision on c05: back to version 1 (now version 4)");
    expect(await item("c05")).toMatchObject({
      method: "review",
      target_concept_id: null,
      comment: "Culture confirmed",
      version: 4,
    });
    expect(await history("c05")).toEqual([
      "push_create - v1",
      "override Dr. Ada v2",
      "comment Dr. Ada v3",
      "revert Dr. Ada v4 to 1",
    ]);
  });

  it("bulk-approves every matching item above a confidence, and the selected ones", async () => {
    // The list still counts the 7 it showed before the three approvals. Confirmed at once after the filter changes, before the list has reloaded: the count is that of
    // the filter shown, read for the confirmation, not the list's count under the previous filter.
    const slowList = (url: URL) =>
      url.pathname.endsWith("/concept-mapping") &&
      url.searchParams.get("min_confidence") === "0.95" &&
      url.searchParams.get("limit") !== "1";
    await page.route(slowList, async (route) => {
      await new Promise((r) => setTimeout(r, 1500));
      // The page may have asked again meanwhile (the filter's reload after the approval): that request
      // is answered by then, and this one has nothing left to continue.
      await route.continue().catch(() => {});
    });
    await page.getByLabel("Confidence from").fill("0.95");
    await page.getByLabel("Confidence from").press("Tab");
    await page.getByRole("button", { name: "Approve all matching (7)" }).click();
    const confirm = page.getByRole("dialog", { name: "Approve all matching items?" });
    await confirm.waitFor();
    // c06 (0.99) and c08 (0.98) still await review; c01 and c02 are approved
    expect(await confirm.locator("p").textContent()).toBe(
      "This approves all 2 items that match the current filters (awaiting review, confidence ≥ 0.95), in one step. Items without a suggestion are reported and left as they are.",
    );
    await axe("bulk confirmation");
    await page.getByRole("button", { name: "Yes, approve them" }).click();
    await expect.poll(() => status().textContent()).toBe("Approve all matching: 2 approved, 0 failed");
    await page.unroute(slowList);
    expect(await item("c06")).toMatchObject({ method: "auto", version: 2 });
    expect(await item("c08")).toMatchObject({ method: "auto", version: 2 });
    await expect.poll(() => paging().textContent()).toBe("No items match");

    await page.getByLabel("Confidence from").fill("");
    await page.getByLabel("Confidence from").press("Tab");
    // The result line spoke of the list before the change: it goes with it.
    await expect.poll(() => status().textContent()).toBe("");
    await expect.poll(() => paging().textContent()).toBe("1–2 of 2"); // c04, c05
    await page.locator("tbody tr[tabindex='0']").focus();
    await page.keyboard.press("x");
    await page.keyboard.press("Shift+A");
    await expect.poll(() => status().textContent()).toBe("Approve selected: 1 approved, 0 failed");
    expect(await item("c04")).toMatchObject({ method: "auto", version: 2 });
    expect(await item("c05")).toMatchObject({ method: "review", version: 4 });
  });

  it("meets a 412 when another reviewer changed the item, shows their decision and re-applies on request", async () => {
    await expect.poll(() => paging().textContent()).toBe("1–1 of 1"); // c05
    await page.locator("tbody tr[tabindex='0']").focus();
    const bos = await h.request("POST", `${itemPath(h, "concept", "c05")}/override`, {
      key: bo,
      body: {
        target_concept_id: 28060,
        target_concept_name: "Streptococcal sore throat",
        target_vocabulary_id: "SNOMED",
      },
    });
    expect(bos.status).toBe(200);
    await page.keyboard.press("r");
    const dialog = page.getByRole("dialog", { name: "Someone else changed this item" });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("Dr. Bo changed c05 to version 5");
    expect(await dialog.locator(".theirs").textContent()).toBe("override: 28060 Streptococcal sore throat");
    await axe("conflict");
    await shot("conflict");
    expect(await item("c05")).toMatchObject({ method: "override", version: 5 }); // the 412 changed nothing
    await page.getByRole("button", { name: "Apply mine anyway" }).focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => status().textContent()).toBe("Rejected c05 (version 6)");
    expect(await item("c05")).toMatchObject({ method: "unmapped", target_concept_id: null, version: 6 });
    expect((await history("c05")).slice(-2)).toEqual(["override Dr. Bo v5", "reject Dr. Ada v6"]);
  });

  it("says in words why an approval cannot succeed, and offers no re-apply that would fail", async () => {
    // c05 was rejected: it has no suggestion left to approve.
    await page.locator("tbody tr[tabindex='0']").focus();
    await page.keyboard.press("a");
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toBe('"J02.0" (Strep throat) has no suggestion to approve: override it instead (press o).');
    expect(await item("c05")).toMatchObject({ method: "unmapped", version: 6 });
    // Bo rejects it too (version 7); an approval from the page's version 6 meets their rejection.
    const bos = await h.request("POST", `${itemPath(h, "concept", "c05")}/reject`, { key: bo });
    expect(bos.status).toBe(200);
    await page.keyboard.press("a");
    const dialog = page.getByRole("dialog", { name: "Someone else changed this item" });
    await dialog.waitFor();
    expect(await dialog.getByRole("button").allTextContents()).toEqual(["Keep theirs"]);
    expect(await dialog.locator(".note").textContent()).toBe(
      "Yours cannot be applied now: their decision left no suggestion to approve. Keep theirs, then override the item if you disagree.",
    );
    await page.getByRole("button", { name: "Keep theirs" }).click();
    await expect.poll(() => status().textContent()).toBe("Kept the other reviewer's decision on c05");
    expect(await item("c05")).toMatchObject({ method: "unmapped", version: 7 });
  });

  it("lists the keys with ? and overrides a schema item from the target model's tables and columns", async () => {
    await page.keyboard.press("?");
    await page.getByRole("dialog", { name: "Keyboard shortcuts" }).waitFor();
    await axe("keys");
    await shot("keys");
    await page.keyboard.press("Escape");
    // The target model's definition is held back until the dialog is open: while it is being read the
    // pickers wait, disabled (they once showed free text that became pickers a moment later).
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route("**/api/v1/standards/**", async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole("link", { name: "Schema items" }).click();
    await expect.poll(() => paging().textContent()).toBe("1–1 of 1");
    await page.locator("tbody tr[tabindex='0']").focus();
    await page.keyboard.press("o");
    await page.getByRole("dialog", { name: "Override patients.sex" }).waitFor();
    expect(await page.getByLabel("Target column").isDisabled()).toBe(true);
    expect(await page.getByLabel("Target column").textContent()).toBe("reading the target model…");
    release();
    await page.getByLabel("Target column").selectOption("gender_concept_id");
    await page.unroute("**/api/v1/standards/**");
    await axe("schema override");
    await page.getByRole("button", { name: "Override", exact: true }).click();
    await expect.poll(() => status().textContent()).toBe("Overrode s1 (version 2)");
    expect(await item("s1", "schema")).toMatchObject({
      status: "overridden",
      target_table: "person",
      target_column: "gender_concept_id",
    });
    await axe("schema items");
    await shot("schema-items");
  });
  it("shows a pushed item's ranked candidates and chooses candidate 2 with the keyboard", async () => {
    await seedConcept(h, [
      {
        ...concept("c09", "J45.9", "Asthma", [317009, "Asthma"], 0.9, "review", 5),
        candidates: [
          {
            concept_id: 317009,
            concept_name: "Asthma",
            vocabulary_id: "SNOMED",
            domain_id: "Condition",
            score: 0.9,
          },
          {
            concept_id: 257581,
            concept_name: "Exacerbation of asthma",
            vocabulary_id: "SNOMED",
            domain_id: "Condition",
            score: 0.72,
          },
        ],
      },
    ]);
    await page.getByRole("link", { name: "Concept items" }).click();
    const row = page.locator("tbody tr[data-id='c09']");
    await row.waitFor();
    await row.click();
    const list = page.getByRole("list", { name: "Candidates" });
    await expect
      .poll(() => list.locator("li").allTextContents())
      .toEqual([
        "1 317009 Asthma SNOMED Condition 0.90",
        "2 257581 Exacerbation of asthma SNOMED Condition 0.72",
      ]);
    await axe("candidates");
    await shot("candidates");
    await page.keyboard.press("3"); // there is no third: nothing happens
    await page.keyboard.press("2");
    await expect.poll(() => status().textContent()).toBe("Chose a candidate for c09 (version 2)");
    expect(await item("c09")).toMatchObject({
      method: "override",
      target_concept_id: 257581,
      target_concept_name: "Exacerbation of asthma",
      version: 2,
    });
    expect(await history("c09")).toEqual(["push_create - v1", "choose Dr. Ada v2"]);
    await row.click();
    await expect
      .poll(() => page.locator(".history > li").nth(1).textContent())
      .toContain("choose candidate 2 v2 by Dr. Ada");
  });
});
