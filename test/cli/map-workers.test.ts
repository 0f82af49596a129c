// Which `crossmap map` runs start their workers early: large file inputs only, as many as --workers says.
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mapWorkerThreads, PRESTART_MIN_BYTES } from "../../src/cli/map-workers.js";

const dir = mkdtempSync(join(tmpdir(), "crossmap-prestart-"));
const big = join(dir, "person.ndjson");
const small = join(dir, "small.ndjson");
const fd = openSync(big, "w");
ftruncateSync(fd, PRESTART_MIN_BYTES); // sparse: no disk used
closeSync(fd);
writeFileSync(small, '{"person_id":1}\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("mapWorkerThreads", () => {
  it("starts N-1 workers early for a large input file, N from --workers or the cores", () => {
    expect(mapWorkerThreads(["--workers", "4", big])).toBe(3);
    expect(mapWorkerThreads(["--workers=3", "-o", "out.ndjson", big])).toBe(2);
    expect(mapWorkerThreads([big])).toBe(availableParallelism() - 1);
  });

  it("starts none for small inputs, stdin, --workers 1, a bad --workers value or help", () => {
    expect(mapWorkerThreads(["--workers", "4", small])).toBe(0);
    expect(mapWorkerThreads(["--workers", "4"])).toBe(0);
    expect(mapWorkerThreads(["--workers", "4", "-"])).toBe(0);
    expect(mapWorkerThreads(["--workers", "1", big])).toBe(0);
    expect(mapWorkerThreads(["--workers", "x", big])).toBe(0);
    expect(mapWorkerThreads(["--workers", "4", big, "--help"])).toBe(0);
  });
});
