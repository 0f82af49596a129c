// Counters and gauges of a long-running process (worker, feed), rendered in the Prometheus text format
// for `GET /metrics` and as JSON for tests and `GET /healthz`.

interface Metric {
  help: string;
  type: "counter" | "gauge";
  /** Label set (rendered `{k="v",...}`, "" for none) -> value. */
  values: Map<string, number>;
}

export class Metrics {
  private readonly metrics = new Map<string, Metric>();

  constructor(private readonly prefix: string) {}

  counter(name: string, help: string): (by?: number, labels?: Record<string, string>) => void {
    const m = this.define(name, help, "counter");
    return (by = 1, labels) => {
      const key = labelKey(labels);
      m.values.set(key, (m.values.get(key) ?? 0) + by);
    };
  }

  gauge(name: string, help: string): (value: number, labels?: Record<string, string>) => void {
    const m = this.define(name, help, "gauge");
    return (value, labels) => {
      m.values.set(labelKey(labels), value);
    };
  }

  /** The value of a metric without labels (0 when never set). */
  get(name: string): number {
    return this.metrics.get(`${this.prefix}_${name}`)?.values.get("") ?? 0;
  }

  private define(name: string, help: string, type: Metric["type"]): Metric {
    const full = `${this.prefix}_${name}`;
    let m = this.metrics.get(full);
    if (!m) {
      m = { help, type, values: new Map() };
      this.metrics.set(full, m);
    }
    return m;
  }

  /** Prometheus text exposition format 0.0.4, with the process's CPU and memory beside. */
  render(): string {
    const lines: string[] = [];
    for (const [name, m] of this.metrics) {
      lines.push(`# HELP ${name} ${m.help}`, `# TYPE ${name} ${m.type}`);
      if (m.values.size === 0) lines.push(`${name} 0`);
      for (const [labels, value] of m.values) lines.push(`${name}${labels} ${formatValue(value)}`);
    }
    const cpu = process.cpuUsage();
    lines.push(
      "# HELP process_cpu_seconds_total User and system CPU time of the process.",
      "# TYPE process_cpu_seconds_total counter",
      `process_cpu_seconds_total ${formatValue((cpu.user + cpu.system) / 1e6)}`,
      "# HELP process_resident_memory_bytes Resident memory of the process.",
      "# TYPE process_resident_memory_bytes gauge",
      `process_resident_memory_bytes ${process.memoryUsage.rss()}`,
    );
    return `${lines.join("\n")}\n`;
  }

  /** `{name: value}` for metrics without labels; labelled ones as `{name: {label values: value}}`. */
  toJSON(): Record<string, number | Record<string, number>> {
    const out: Record<string, number | Record<string, number>> = {};
    for (const [name, m] of this.metrics) {
      const short = name.slice(this.prefix.length + 1);
      if (m.values.size === 0 || (m.values.size === 1 && m.values.has(""))) {
        out[short] = m.values.get("") ?? 0;
        continue;
      }
      const byLabels: Record<string, number> = {};
      // `{partition="A"}` -> `A`: the values alone, comma-separated.
      for (const [labels, value] of m.values) {
        const values = [...labels.matchAll(/="((?:[^"\\]|\\.)*)"/g)].map((x) =>
          x[1]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c)),
        );
        byLabels[values.join(",")] = value;
      }
      out[short] = byLabels;
    }
    return out;
  }
}

function labelKey(labels: Record<string, string> | undefined): string {
  if (!labels) return "";
  const parts = Object.entries(labels).map(
    ([k, v]) => `${k}="${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`,
  );
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}

function formatValue(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(6);
}
