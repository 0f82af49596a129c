import { describe, expect, it } from "vitest";
import { type ProcessView, youngGenerationArgs } from "../../src/cli/young-generation.js";

const node24: ProcessView = {
  execPath: "/usr/bin/node",
  execArgv: ["--enable-source-maps"],
  argv: ["/usr/bin/node", "/app/bin/crossmap.js", "map", "--from", "hl7v2_2.5.1", "in.hl7"],
  platform: "linux",
  v8: "13.6.233.10-node.27",
  env: {},
  canExecve: true,
};

describe("youngGenerationArgs", () => {
  it("starts a data command again on V8 13 with the semi-space of Node 20 and 22, keeping every argument", () => {
    expect(youngGenerationArgs(node24)).toEqual([
      "/usr/bin/node",
      "--max-semi-space-size=16",
      "--enable-source-maps",
      "/app/bin/crossmap.js",
      "map",
      "--from",
      "hl7v2_2.5.1",
      "in.hl7",
    ]);
  });

  it("goes on in this process on Node 20 and 22 (V8 11 and 12), whose young generation is already 32 MB", () => {
    expect(youngGenerationArgs({ ...node24, v8: "11.3.244.8-node.33" })).toBeUndefined();
    expect(youngGenerationArgs({ ...node24, v8: "12.4.254.21-node.33" })).toBeUndefined();
  });

  it("never twice, and never against a size the user chose (argument or NODE_OPTIONS)", () => {
    expect(youngGenerationArgs({ ...node24, execArgv: ["--max-semi-space-size=16"] })).toBeUndefined();
    expect(youngGenerationArgs({ ...node24, execArgv: ["--max-semi-space-size", "64"] })).toBeUndefined();
    expect(
      youngGenerationArgs({ ...node24, env: { NODE_OPTIONS: "--max-semi-space-size=64" } }),
    ).toBeUndefined();
    expect(
      youngGenerationArgs({ ...node24, env: { NODE_OPTIONS: "--inspect --max-semi-space-size=64" } }),
    ).toBeUndefined();
    expect(youngGenerationArgs({ ...node24, env: { CROSSMAP_KEEP_HEAP: "1" } })).toBeUndefined();
  });

  it("leaves commands that move no records, help and Windows alone", () => {
    const argv = (...a: string[]) => ({ ...node24, argv: ["/usr/bin/node", "/app/bin/crossmap.js", ...a] });
    expect(youngGenerationArgs(argv("list"))).toBeUndefined();
    expect(youngGenerationArgs(argv("keys", "create"))).toBeUndefined();
    expect(youngGenerationArgs(argv("--version"))).toBeUndefined();
    expect(youngGenerationArgs(argv())).toBeUndefined();
    expect(youngGenerationArgs(argv("map", "--help"))).toBeUndefined();
    expect(youngGenerationArgs(argv("listen", "--mllp", "2575"))?.slice(0, 2)).toEqual([
      "/usr/bin/node",
      "--max-semi-space-size=16",
    ]);
    expect(youngGenerationArgs({ ...node24, platform: "win32" })).toBeUndefined();
    expect(youngGenerationArgs({ ...node24, canExecve: false })).toBeUndefined();
  });
});
