import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { runCli } from "./run-cli.js";

const ALL = [
  "demo",
  "check",
  "list",
  "transforms",
  "map",
  "report",
  "validate",
  "roundtrip",
  "serve",
  "projects",
  "keys",
  "vocab",
  "db",
  "export",
  "import",
  "revalidate",
  "suggest",
  "worker",
  "stream",
  "publish",
  "listen",
  "dq",
];

describe("crossmap: commands are loaded only when needed", () => {
  it("builds the named command alone, and every command for no, help or an unknown command", async () => {
    const names = async (command?: string) => (await buildProgram(command)).commands.map((c) => c.name());
    expect(await names("map")).toEqual(["map"]);
    expect(await names("transforms")).toEqual(["list", "transforms"]);
    expect(await names()).toEqual(ALL);
    expect(await names("--help")).toEqual(ALL);
    expect(await names("help")).toEqual(ALL);
    expect(await names("frob")).toEqual(ALL);
  });

  it("still lists every command in help and rejects an unknown one with exit 2", async () => {
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    for (const name of ALL) expect(help.stdout).toMatch(new RegExp(`^  ${name}\\b`, "m"));
    const unknown = await runCli(["frob"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: unknown command 'frob'\n/);
  });
});
