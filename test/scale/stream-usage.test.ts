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

  it.each([
    [[], "give --out, --fhir-server, or both: where the results go"],
    [["--out", "ehr.out", "--bundle", "batch"], "--bundle batch goes with --fhir-server"],
    [
      ["--fhir-server", "http://127.0.0.1:1/fhir", "--bundle", "collection"],
      "--fhir-server sends transaction or batch Bundles, not --bundle collection",
    ],
    [["--fhir-server", "not a url"], '--fhir-server must be an http(s) URL, got "not a url"'],
  ])("%j: where results go is checked before connecting", async (flags, message) => {
    const r = await runCli([
      "stream",
      "--nats",
      "nats://127.0.0.1:1",
      "--from",
      "hl7v2",
      "--to",
      "fhir",
      "--in",
      "hl7.in",
      ...flags,
    ]);
    expect([r.code, r.stderr]).toEqual([2, `crossmap: ${message}\n`]);
  });
});
