// A data job runs on the data worker's own handle of the LMDB environment, whose reads share one snapshot
// that lmdb renews only after that handle's own writes or on a timer turn. A job sent right after the
// server committed something on its handle (a project created, then an import into it) must see it: an
// import once answered 404 "Project ... not found" for a project created a moment before. Here the two
// handles are in one thread (lmdb keeps a snapshot per handle, as per thread) and lmdb's timer is held
// (fake setTimeout), so the stale snapshot is not left to timing.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runDataJob } from "../../src/server/data-job.js";
import { openStores, type Stores } from "../../src/store/env.js";

const opened: Stores[] = [];
let dir: string | undefined;
afterEach(async () => {
  vi.useRealTimers();
  for (const s of opened.splice(0)) await s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("runDataJob", () => {
  it("sees what another handle committed just before the job, though its own snapshot is older", async () => {
    dir = mkdtempSync(join(tmpdir(), "crossmap-data-job-"));
    const server = openStores(dir, { durability: "commit" });
    const worker = openStores(dir, { durability: "commit" });
    opened.push(worker, server);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    // The worker's handle reads (an earlier job): its snapshot is taken now.
    expect(worker.projects.list()).toEqual([]);
    const project = await server.write(() => server.projects.create({ name: "fresh" }));
    // Without a fresh snapshot the worker would not find it yet.
    expect(worker.projects.get(project.id)).toBeUndefined();
    const result = await runDataJob(worker, undefined, {
      kind: "export-stcm",
      projectId: project.id,
      sourceVocabularyId: undefined,
    });
    expect(result).toMatchObject({ ok: true });
  });
});
