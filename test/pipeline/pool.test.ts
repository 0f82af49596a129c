import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { prestartedCount, prestartWorkers, startWorkerPool } from "../../src/pipeline/pool.js";
import type { BatchResult, LinesBatch } from "../../src/pipeline/types.js";

// The worker runs compiled code, so this needs `npm run build` first (npm test does it).
const workerUrl = new URL("../../dist/pipeline/worker.js", import.meta.url);
const crossmap = resolve("test/fixtures/map/omop-to-fhir.yaml");

function line(id: number | string, code: string): string {
  return `{"condition_occurrence_id": ${id}, "person_id": 7, "condition_source_value": "${code}"}`;
}

function mapped(id: number | string, code: string): string {
  return `{"resourceType":"Condition","id":"${id}","subject":{"reference":"Patient/7"},"code":{"coding":[{"system":"http://snomed.info/sct","code":"${code}"}]}}\n`;
}

describe("worker pool", () => {
  it("gives a worker batches only once it is ready, and maps the bytes it is moved exactly", async () => {
    const pool = startWorkerPool({
      count: 1,
      init: {
        plan: { crossmaps: [crossmap] },
        stage: { onError: "skip", perEntity: false },
      },
      workerUrl,
    });
    try {
      // A worker cannot have loaded its modules yet: the main thread maps meanwhile.
      expect(pool.hasRoom()).toBe(false);
      while (!pool.hasRoom()) await new Promise((r) => setTimeout(r, 5));

      // The batch is a view into a larger chunk, as the reader cuts it; 2-, 3- and 4-byte characters,
      // CRLF, a blank line, a malformed line, an id beyond 2^53 and a last line without a newline.
      const text = [
        `${line(1, "é")}\r\n`,
        "\r\n",
        `${line(2, "漢字")}\n`,
        '{"condition_occurrence_id": \n',
        `${line("1741351032930224901", "😀x")}\n`,
        line(4, "a😀"),
      ].join("");
      const chunk = Buffer.from(`HEAD\n${text}TAIL`);
      const start = 5;
      const end = chunk.length - 4;
      const batch: LinesBatch = {
        kind: "lines",
        file: "in.ndjson",
        entity: "condition_occurrence",
        bundles: false,
        firstLine: 41,
        text: chunk.subarray(start, end),
      };
      const result: BatchResult = await pool.submit(batch);
      // The reader's chunk is still whole: the pool moved a copy, not the chunk.
      expect(chunk.toString()).toBe(`HEAD\n${text}TAIL`);
      const out = result.output[""];
      expect(out).toBeInstanceOf(Uint8Array);
      expect(Buffer.from(out as Uint8Array).toString("utf8")).toBe(
        mapped(1, "é") + mapped(2, "漢字") + mapped("1741351032930224901", "😀x") + mapped(4, "a😀"),
      );
      expect(result.recordsIn).toBe(5);
      expect(result.recordsOut).toBe(4);
      expect(result.issues.map((i) => [i.line, i.code])).toEqual([[44, "malformed_json"]]);
    } finally {
      await pool.close();
    }
  });

  it("takes a worker started before its plan was known, and maps with the plan it is sent", async () => {
    prestartWorkers(1, workerUrl);
    expect(prestartedCount()).toBe(1);
    // Give it time to load its modules first, as it does while the main thread starts up.
    await new Promise((r) => setTimeout(r, 300));
    const pool = startWorkerPool({
      count: 1,
      init: { plan: { crossmaps: [crossmap] }, stage: { onError: "skip", perEntity: false } },
      workerUrl,
    });
    expect(prestartedCount()).toBe(0);
    try {
      while (!pool.hasRoom()) await new Promise((r) => setTimeout(r, 5));
      const result = await pool.submit({
        kind: "lines",
        file: "in.ndjson",
        entity: "condition_occurrence",
        bundles: false,
        firstLine: 1,
        text: Buffer.from(`${line(9, "x")}\n`),
      });
      expect(Buffer.from(result.output[""] as Uint8Array).toString("utf8")).toBe(mapped(9, "x"));
      expect(pool.workerStats).toEqual([]);
    } finally {
      await pool.close();
    }
  });
});
