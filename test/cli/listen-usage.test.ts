// `crossmap listen` refuses bad flags before it opens anything, with the usage exit code and a message
// naming the flag.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDuration } from "../../src/cli/listen.js";
import { runCli } from "./run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "crossmap-listen-usage-"));
const listen = (...args: string[]) => runCli(["listen", "--mllp", "0", "--journal", join(dir, "j"), ...args]);

describe("crossmap listen usage", () => {
  it("names what is wrong", async () => {
    const cases: [string[], string][] = [
      [[], "crossmap: give --out-dir or --out-subject: where the converted Bundles go\n"],
      [
        ["--out-dir", dir, "--out-subject", "x"],
        "crossmap: give --out-dir or --out-subject: where the converted Bundles go\n",
      ],
      [["--out-subject", "fhir.out"], "crossmap: --out-subject needs --nats\n"],
      [["--out-dir", dir, "--tls-cert", "c.pem"], "crossmap: --tls-cert and --tls-key go together\n"],
      [
        ["--out-dir", dir, "--dedup-window", "1 week"],
        'crossmap: --dedup-window must be a duration such as 90s, 15m, 24h or 7d, got "1 week"\n',
      ],
      [
        ["--out-dir", dir, "--max-message-bytes", "12"],
        'crossmap: --max-message-bytes must be a size from 1024 bytes to 512m, such as 4m, got "12"\n',
      ],
    ];
    for (const [args, stderr] of cases) {
      const r = await listen(...args);
      expect([args, r.code, r.stderr]).toEqual([args, 2, stderr]);
    }
  });

  it("reads durations", () => {
    expect(["0", "500ms", "90s", "15m", "24h", "7d"].map((d) => parseDuration("--x", d))).toEqual([
      0, 500, 90_000, 900_000, 86_400_000, 604_800_000,
    ]);
  });
});
