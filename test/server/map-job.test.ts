// The map pool sends a project's decisions to a worker only when the worker does not hold them yet: both
// sides keep their record of held keys with touchKey, so the records must agree after any sequence of jobs.
import { describe, expect, it } from "vitest";
import {
  createJobRunner,
  DECISION_KEYS,
  type MapJob,
  type MapReply,
  touchKey,
} from "../../src/server/map-job.js";

describe("touchKey", () => {
  it("keeps the DECISION_KEYS most recently used keys, in the same order on both sides", () => {
    const pool = new Map<string, true>();
    const worker = new Map<string, string>();
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    let sent = 0;
    for (let i = 0; i < 5000; i++) {
      const key = `p${(next() >> 8) % 40}`;
      const held = touchKey(pool, key, () => true);
      if (!held) sent++;
      // The worker gets entries exactly when the pool did not hold the key.
      touchKey(worker, key, () => (held ? "missing" : "entries"));
      expect(worker.get(key)).toBe(held ? worker.get(key) : "entries");
      expect([...worker.keys()]).toEqual([...pool.keys()]);
    }
    expect(pool.size).toBe(DECISION_KEYS);
    expect([...worker.values()]).not.toContain("missing");
    expect(sent).toBeLessThan(5000);
  });
});

describe("a map worker's job runner", () => {
  const text = JSON.stringify({
    source_standard: "s",
    target_standard: "t",
    source_entity: "e",
    records: [{ a: 1 }],
    crossmap: "source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.a: {target: T.a}\n",
  });
  const run = (jobs: Omit<MapJob, "id">[]) => {
    const runner = createJobRunner({ maxRecords: 10 });
    const replies: MapReply[] = [];
    jobs.forEach((job, i) => {
      runner({ ...job, id: i + 1 }, (r) => replies.push(r));
    });
    return replies.filter((r) => r.kind !== "started");
  };

  it("maps with decisions it was sent, and with the same key sent again without entries", () => {
    const decisions = { key: "p\u001f1", entries: [] };
    const replies = run([
      { text, project: "exists", decisions },
      { text, project: "exists", decisions: { key: decisions.key } },
    ]);
    expect(replies.map((r) => r.kind)).toEqual(["done", "done"]);
  });

  it("never maps without the decisions: a key it does not hold fails the call", () => {
    const replies = run([{ text, project: "exists", decisions: { key: "p\u001f2" } }]);
    expect(replies).toEqual([
      { id: 1, kind: "failed", reason: "the project's decisions did not reach the map worker" },
    ]);
  });

  it("records the request's unreviewed mode in the run (ignore by default)", () => {
    const runner = createJobRunner({ maxRecords: 10 });
    const started: unknown[] = [];
    const send = (r: MapReply) => r.kind === "started" && started.push(r.run.unreviewed);
    runner({ id: 1, text, project: "exists", decisions: { key: "k", entries: [] } }, send);
    const use = JSON.stringify({ ...JSON.parse(text), unreviewed: "use" });
    runner({ id: 2, text: use, project: "exists", decisions: { key: "k" } }, send);
    expect(started).toEqual(["ignore", "use"]);
  });
});
