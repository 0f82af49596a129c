// `crossmap listen` refuses bad flags before it opens anything, with the usage exit code and a message
// naming the flag.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDuration } from "../../src/cli/listen.js";
import { runCli } from "./run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "crossmap-listen-usage-"));
const ONE_OUTPUT = "give one of --out-dir, --out-subject or --fhir-server: where the converted Bundles go";
const listen = (...args: string[]) => runCli(["listen", "--mllp", "0", "--journal", join(dir, "j"), ...args]);

describe("crossmap listen usage", () => {
  it("names what is wrong", async () => {
    const cases: [string[], string][] = [
      [[], `crossmap: ${ONE_OUTPUT}\n`],
      [["--out-dir", dir, "--out-subject", "x"], `crossmap: ${ONE_OUTPUT}\n`],
      [["--out-dir", dir, "--fhir-server", "http://127.0.0.1:1/fhir"], `crossmap: ${ONE_OUTPUT}\n`],
      [
        ["--fhir-server", "http://127.0.0.1:1/fhir", "--bundle", "collection"],
        "crossmap: --fhir-server sends transaction or batch Bundles, not --bundle collection\n",
      ],
      [["--out-dir", dir, "--bundle", "batch"], "crossmap: --bundle batch goes with --fhir-server\n"],
      [
        ["--fhir-server", "ftp://x/fhir"],
        'crossmap: --fhir-server must be an http(s) URL, got "ftp://x/fhir"\n',
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
