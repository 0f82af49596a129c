// The review workbench's requests against a real `crossmap serve` holding a project of 100,000 concept
// items: the first page (cold: the server builds its in-memory copy of the project; then warm), filtered,
// searched and sorted pages, progress stats, and a reviewer's keyboard decisions one after another (an
// approve with If-Match, then the page the workbench reloads). GET /healthz on the same server, in the
// same run, is the baseline. Latency is as the client sees it; server time comes from the server's log.
// Then the page itself in Debian's chromium (playwright-core, the flags of the browser tests): the first
// page of the 100,000 items rendered after a navigation, and keyboard decisions timed in the page from the
// keydown to the row and status showing the persisted version; the same decision through the API (above,
// same server, same run) is their baseline. Without chromium (found as the tests find it) that part is skipped.
// Run: npm run bench -- workbench [--items 100000] [--decisions 200] [--durability flush|commit]
//      [--browser-pages 20] [--browser-decisions 200] [--think-ms 300]
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import type { Page } from "playwright-core";
import { launchChromium } from "../test/support/chromium.js";
import { findTool } from "../test/support/tools.js";
import { adminKey, freePort, waitForHealth } from "./serve-child.js";

const { values: args } = parseArgs({
  options: {
    items: { type: "string", default: "100000" },
    decisions: { type: "string", default: "200" },
    repeat: { type: "string", default: "30" },
    durability: { type: "string", default: "flush" },
    "browser-pages": { type: "string", default: "20" },
    "browser-decisions": { type: "string", default: "200" },
    "think-ms": { type: "string", default: "300" },
  },
});
const ITEMS = Number(args.items);
const DECISIONS = Number(args.decisions);
const REPEAT = Number(args.repeat);
const root = new URL("..", import.meta.url).pathname;

interface Row {
  case: string;
  n: number;
  p50_ms: number;
  p95_ms: number;
  server_p50_ms: number;
  server_p95_ms: number;
  ratio_p95_to_healthz: number;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const round = (x: number) => Math.round(x * 100) / 100;

/** Server time per request, from the server's JSON log lines, in the order requests finish. */
const serverTimes: number[] = [];

function startServer(dataDir: string, port: number): ChildProcess {
  const server = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
      join(root, "bin/crossmap.js"),
      "serve",
      "--port",
      String(port),
      "--data-dir",
      dataDir,
      "--init",
      "--durability",
      args.durability,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  createInterface({ input: server.stdout! }).on("line", (line) => {
    const entry = JSON.parse(line) as { msg: string; duration_ms?: number };
    if (entry.msg === "request" && entry.duration_ms !== undefined) serverTimes.push(entry.duration_ms);
  });
  return server;
}

async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null) return;
  server.kill("SIGTERM");
  await new Promise((r) => server.once("exit", r));
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "crossmap-workbench-"));
  const port = await freePort();
  let server = startServer(dataDir, port);
  try {
    const key = await adminKey(server);
    const base = `http://127.0.0.1:${port}`;
    await waitForHealth(base);
    const call = async (
      method: string,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
      return { json: JSON.parse(text) as Record<string, unknown>, etag: res.headers.get("etag") };
    };
    const project = (await call("POST", "/api/v1/projects", { name: "workbench" })).json.id as string;
    const started = performance.now();
    for (let from = 0; from < ITEMS; from += 10_000) {
      const items = Array.from({ length: Math.min(10_000, ITEMS - from) }, (_, k) => {
        const i = from + k;
        return {
          id: `c${String(i).padStart(7, "0")}`,
          source_column: "lab_code",
          source_code: `L${i}`,
          source_vocabulary_id: "LOCAL_LAB",
          source_description: `Local laboratory test ${i} ${i % 7 === 0 ? "glucose serum" : "sodium plasma"}`,
          source_frequency: (i * 7919) % 10_000,
          target_concept_id: 3_000_000 + i,
          target_concept_name: `Target concept ${i}`,
          target_vocabulary_id: "LOINC",
          confidence: ((i * 104_729) % 1000) / 1000,
        };
      });
      await call("POST", `/api/v1/sync/projects/${project}/concept-mappings/bulk`, { items });
    }
    const pushSeconds = (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 200)); // the push requests' log lines
    const list = `/v1/projects/${project}/concept-mapping`;

    const rows: Row[] = [];
    const measure = async (name: string, n: number, one: (i: number) => Promise<unknown>) => {
      const client: number[] = [];
      const before = serverTimes.length;
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await one(i);
        client.push(performance.now() - t);
      }
      await new Promise((r) => setTimeout(r, 50)); // the last log lines
      const srv = serverTimes.slice(before);
      rows.push({
        case: name,
        n,
        p50_ms: round(pct(client, 50)),
        p95_ms: round(pct(client, 95)),
        server_p50_ms: round(pct(srv, 50)),
        server_p95_ms: round(pct(srv, 95)),
        ratio_p95_to_healthz: 0,
      });
    };

    // The push started building the project's in-memory copy; this waits for whatever is left of it.
    await measure("first page right after the push", 1, () => call("GET", `${list}?limit=50`));
    await measure("GET /healthz (baseline)", REPEAT, () => fetch(`${base}/healthz`).then((r) => r.text()));
    await measure("first page", REPEAT, () => call("GET", `${list}?limit=50`));
    await measure("needs_review, by -confidence", REPEAT, () =>
      call("GET", `${list}?needs_review=true&sort=-confidence&limit=50`),
    );
    await measure("q=glucose, by -source_frequency", REPEAT, () =>
      call("GET", `${list}?q=glucose&sort=-source_frequency&limit=50`),
    );
    await measure("page 1000 (offset 49950)", REPEAT, () => call("GET", `${list}?limit=50&offset=49950`));
    await measure("stats", REPEAT, () => call("GET", `${list}/stats`));
    // A reviewer going down the list: fetch the item's version, approve with If-Match; the decision
    // is persisted (and with --durability flush, fsynced) before the answer.
    const ids = Array.from({ length: DECISIONS }, (_, i) => `c${String(i * 37).padStart(7, "0")}`);
    await measure("keyboard decision (approve, If-Match)", DECISIONS, (i) =>
      call("POST", `${list}/${ids[i]}/approve`, undefined, { "if-match": '"1"' }),
    );
    await measure("page reload after a decision", REPEAT, async (i) => {
      await call("POST", `${list}/${ids[i]}/reject`);
      return call("GET", `${list}?needs_review=true&sort=-confidence&limit=50`);
    });
    // After a restart nothing is in memory: the server starts building the copy in the background, and
    // the first request (sent as soon as the server answers) waits for what is left of it.
    await stopServer(server);
    server = startServer(dataDir, port);
    await waitForHealth(base, 60);
    await measure("first page right after a restart", 1, () => call("GET", `${list}?limit=50`));
    const healthz = rows.find((r) => r.case.startsWith("GET /healthz"))!.p95_ms;
    for (const r of rows) r.ratio_p95_to_healthz = round(r.p95_ms / healthz);
    const browser = findTool("chromium") ? await inBrowser(base, key, project, rows) : undefined;
    if (!browser) process.stderr.write("workbench: chromium is missing, the page was not measured\n");

    console.log(
      `workbench: ${ITEMS} concept items pushed in ${pushSeconds.toFixed(1)} s; --durability ${args.durability}`,
    );
    console.table(rows);
    if (browser) console.table(browser);
    console.log(
      JSON.stringify({
        bench: "workbench",
        items: ITEMS,
        durability: args.durability,
        push_s: round(pushSeconds),
        rows,
        ...(browser ? { browser } : {}),
      }),
    );
  } finally {
    await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface BrowserRow {
  case: string;
  n: number;
  p50_ms: number;
  p95_ms: number;
  baseline: string;
  baseline_p95_ms: number;
  ratio_p95: number;
}

/**
 * The page in chromium against the same server: sign in through the form, then (1) the first page after
 * a navigation to the project's concept items, from navigation start to the table holding the page and
 * its "1–50 of N" (a MutationObserver installed before the page's scripts records the moment); (2) a
 * reviewer's keyboard decisions one after another, each from its keydown to the DOM showing the
 * persisted version (the status line and the row are set in the same render), and to the next frame
 * after it (painted). The API's own figures from above, same run, are the baselines.
 */
async function inBrowser(base: string, key: string, project: string, api: Row[]): Promise<BrowserRow[]> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.addInitScript(() => {
      const w = window as unknown as { firstPageAt?: number };
      new MutationObserver(() => {
        if (w.firstPageAt !== undefined) return;
        const paging = document.querySelector(".paging")?.textContent ?? "";
        if (document.querySelector("table.items tbody tr") && / of \d/.test(paging))
          w.firstPageAt = performance.now();
      }).observe(document, { childList: true, subtree: true, characterData: true });
    });
    await page.goto(`${base}/ui/`);
    await page.getByLabel("API key").fill(key);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    const view = `${base}/ui/#/p/${encodeURIComponent(project)}/concept-mapping`;
    const firstPage = async (): Promise<number> => {
      await page.goto("about:blank");
      await page.goto(view);
      await page.waitForFunction(() => (window as unknown as { firstPageAt?: number }).firstPageAt);
      const paging = await page.locator(".paging").textContent();
      if (paging !== `1–50 of ${ITEMS}`) throw new Error(`first page shows ${paging}`);
      return page.evaluate(() => (window as unknown as { firstPageAt: number }).firstPageAt);
    };
    await firstPage(); // warm: the browser's cache of the page's assets, the server's code paths
    const pages: number[] = [];
    for (let i = 0; i < Number(args["browser-pages"]); i++) pages.push(await firstPage());

    // Decisions: needs_review only (what a reviewer goes through), focus on the first row, then `a` after
    // `a`; the page moves to the next item after each, and `n` turns the page after 50.
    await page.getByLabel("Awaiting review only").check();
    await page
      .locator(".paging")
      .filter({ hasText: /^1–50 of / })
      .waitFor();
    await page.locator("tbody tr[tabindex='0']").focus();
    await page.evaluate(() => {
      const w = window as unknown as { decisions: { down: number; shown?: number; painted?: number }[] };
      w.decisions = [];
      document.addEventListener(
        "keydown",
        (e) => {
          if (e.key === "a") w.decisions.push({ down: e.timeStamp });
        },
        true,
      );
      const status = document.querySelector("p.status")!;
      new MutationObserver(() => {
        const d = w.decisions[w.decisions.length - 1];
        if (!d || d.shown !== undefined || !status.textContent?.startsWith("Approved")) return;
        d.shown = performance.now();
        requestAnimationFrame(() => setTimeout(() => (d.painted = performance.now())));
      }).observe(status, { childList: true, subtree: true, characterData: true });
    });
    // The first half back to back (the next key as soon as the last decision is painted, while the
    // stats and history requests that follow a decision are still running), the second half after a
    // pause of --think-ms, as a reviewer who reads the next row first.
    const n = Number(args["browser-decisions"]);
    const think = Number(args["think-ms"]);
    const approvedBefore = await approvedCount(page);
    for (let i = 0; i < n; i++) {
      if (i > 0 && i % 50 === 0) {
        const next = `${i + 1}–`;
        await page.keyboard.press("n");
        await page.locator(".paging").filter({ hasText: next }).waitFor();
      }
      if (i >= n / 2) await page.waitForTimeout(think);
      await page.keyboard.press("a");
      await page.waitForFunction((k) => {
        const d = (window as unknown as { decisions: { painted?: number }[] }).decisions;
        return d.length === k && d[k - 1]!.painted !== undefined;
      }, i + 1);
    }
    const decisions = await page.evaluate(
      () =>
        (window as unknown as { decisions: { down: number; shown: number; painted: number }[] }).decisions,
    );
    // every decision persisted: the server counts them
    const approvedAfter = await approvedCount(page);
    if (approvedAfter - approvedBefore !== n)
      throw new Error(`${approvedAfter - approvedBefore} approvals persisted, not ${n}`);
    const apiRow = (name: string) => api.find((r) => r.case === name)!;
    const row = (name: string, ms: number[], baseline: string): BrowserRow => {
      const b = apiRow(baseline).p95_ms;
      return {
        case: name,
        n: ms.length,
        p50_ms: round(pct(ms, 50)),
        p95_ms: round(pct(ms, 95)),
        baseline,
        baseline_p95_ms: b,
        ratio_p95: round(pct(ms, 95) / b),
      };
    };
    const decision = "keyboard decision (approve, If-Match)";
    const half = Math.floor(n / 2);
    const shown = decisions.map((d) => d.shown - d.down);
    const painted = decisions.map((d) => d.painted - d.down);
    return [
      row("page: first page rendered (from navigation start)", pages, "first page"),
      row(
        "page: decision shown, back to back (keydown -> persisted version in the DOM)",
        shown.slice(0, half),
        decision,
      ),
      row("page: decision painted, back to back (keydown -> next frame)", painted.slice(0, half), decision),
      row(`page: decision shown, ${think} ms apart`, shown.slice(half), decision),
      row(`page: decision painted, ${think} ms apart`, painted.slice(half), decision),
    ];
  } finally {
    await browser.close();
  }
}

/** Items approved (method auto), from the stats the page itself reads (same key, same origin). */
async function approvedCount(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const key = sessionStorage.getItem("crossmap.key");
    const m = /#\/p\/([^/]+)\//.exec(location.hash)!;
    const r = await fetch(`/v1/projects/${m[1]}/concept-mapping/stats`, {
      headers: { authorization: `Bearer ${key}` },
    });
    return ((await r.json()) as { by_method: Record<string, number> }).by_method.auto ?? 0;
  });
}

await main();
