// `crossmap stream` refuses, before it connects, what a feed cannot do: a record feed through a crossmap that
// gathers records of the whole input into others; and it takes the crossmap's --param values.
import { describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";

// Nothing listens here: each command below must stop before it would connect.
const NOWHERE = ["--nats", "nats://127.0.0.1:1", "--in", "omop.in", "--out", "ehr.out"];

describe("crossmap stream usage", () => {
  it("refuses a record feed through a gathering crossmap, with exit 2", async () => {
    const r = await runCli([
      "stream",
      "--crossmap",
      "test/golden/lang-openehr-gather/crossmap.yaml",
      ...NOWHERE,
    ]);
    expect([r.code, r.stderr]).toEqual([
      2,
      "crossmap: the crossmap gathers records into others (key/into), which needs the whole input: a record feed maps each message on its own; map such data with `crossmap map` (with --nats for workers)\n",
    ]);
  });

  it("passes --param to the crossmap", async () => {
    const r = await runCli([
      "stream",
      "--crossmap",
      "test/fixtures/map/omop-to-fhir.yaml",
      "--param",
      "nope=1",
      ...NOWHERE,
    ]);
    expect([r.code, r.stderr]).toEqual([
      2,
      'crossmap: --param nope: the crossmap has no parameter "nope" (it declares none)\n',
    ]);
  });
});
