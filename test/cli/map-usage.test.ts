import { describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

describe("crossmap map: usage errors exit 2 and say what is wrong", () => {
  it("needs --from and --to unless a crossmap is given", async () => {
    const r = await runCli(["map", "--to", "fhir_r4"]);
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr: "crossmap: --from and --to are required unless --crossmap is given\n",
    });
  });

  it("refuses -o together with --out-dir", async () => {
    const r = await runCli(["map", "--from", "a", "--to", "b", "-o", "x.ndjson", "--out-dir", "d"]);
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr: "crossmap: give either -o/--output or --out-dir, not both\n",
    });
  });

  it("checks --workers and --on-error", async () => {
    const workers = await runCli(["map", "--workers", "0"]);
    expect(workers.code).toBe(2);
    expect(workers.stderr).toBe('crossmap: --workers must be a whole number from 1 to 256, got "0"\n');
    const onError = await runCli(["map", "--on-error", "ignore"]);
    expect(onError.code).toBe(2);
    expect(onError.stderr).toContain(
      "error: option '--on-error <mode>' argument 'ignore' is invalid. Allowed choices are skip, fail.",
    );
  });

  it("wants --crossmap twice with --via, or not at all", async () => {
    const r = await runCli(["map", "--via", "fhir_r4", "--crossmap", "a.yaml"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "crossmap: with --via, give --crossmap twice (first leg, then second leg) or not at all\n",
    );
  });
});
