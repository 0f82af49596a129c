// Metrics as Prometheus text and as JSON, and --health-port addresses.
import { describe, expect, it } from "vitest";
import { parseHealthAddress } from "../../src/scale/health.js";
import { Metrics } from "../../src/scale/metrics.js";

describe("Metrics", () => {
  it("renders counters and gauges, with labels, in the Prometheus text format and as JSON", () => {
    const m = new Metrics("crossmap_test");
    const batches = m.counter("batches_total", "Batches.");
    const lag = m.gauge("lag", "Lag.");
    batches();
    batches(2);
    lag(5, { partition: 'A"1' });
    lag(0, { partition: "B" });
    const text = m.render();
    expect(text).toContain(
      "# HELP crossmap_test_batches_total Batches.\n# TYPE crossmap_test_batches_total counter\ncrossmap_test_batches_total 3\n",
    );
    expect(text).toContain(
      '# TYPE crossmap_test_lag gauge\ncrossmap_test_lag{partition="A\\"1"} 5\ncrossmap_test_lag{partition="B"} 0\n',
    );
    expect(text).toMatch(/\nprocess_resident_memory_bytes \d+\n$/);
    expect(m.toJSON()).toEqual({ batches_total: 3, lag: { 'A"1': 5, B: 0 } });
    expect(m.get("batches_total")).toBe(3);
  });

  it("reads --health-port as PORT or HOST:PORT", () => {
    expect(parseHealthAddress("9090")).toEqual({ host: "0.0.0.0", port: 9090 });
    expect(parseHealthAddress("127.0.0.1:0")).toEqual({ host: "127.0.0.1", port: 0 });
    expect(() => parseHealthAddress("99999")).toThrow('--health-port must be PORT or HOST:PORT, got "99999"');
  });
});
