// The system programs a few tests need beyond Node and npm (Debian packages): found on the machine, or the
// tests that need them are skipped with one line naming the package, and the skip is recorded for the run's
// closing lines (tool-suite.ts records it, tool-skips.ts, the suite's globalSetup, lists it). CROSSMAP_HIDE_TOOLS=chromium,nats-server hides
// them, as on a machine with only Node: that is how the skips are tested (test/support/tools.int.test.ts).
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

export interface Tool {
  /** The Debian package that provides it. */
  debian: string;
  /** An environment variable that names the program's path, tried first. */
  env: string;
  /** Where Debian installs it; then every folder of PATH is tried. */
  paths: string[];
  /** Which tests need it, for the closing lines and the README. */
  usedBy: string;
}

export const TOOLS = {
  chromium: {
    debian: "chromium",
    env: "CHROMIUM",
    paths: ["/usr/bin/chromium"],
    usedBy: "the review page in a browser (test/ui)",
  },
  "nats-server": {
    debian: "nats-server",
    env: "NATS_SERVER",
    paths: ["/usr/sbin/nats-server", "/usr/bin/nats-server"],
    usedBy:
      "distributed runs over NATS JetStream (test/scale/*.int.test.ts, test/intake/jetstream.int.test.ts)",
  },
  // A private cluster is started with initdb and pg_ctl, which Debian keeps in /usr/lib/postgresql/V/bin.
  initdb: {
    debian: "postgresql",
    env: "PG_INITDB",
    paths: postgresBinaries("initdb"),
    usedBy:
      "OMOP CDM loads into a real PostgreSQL server (test/sinks/cdm/load-postgres, test/sinks/db/client)",
  },
} as const satisfies Record<string, Tool>;

/** Debian's PostgreSQL program `name`, newest version first. */
function postgresBinaries(name: string): string[] {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => join(root, v, "bin", name));
}

export const HIDE_ENV = "CROSSMAP_HIDE_TOOLS";
export type ToolName = keyof typeof TOOLS;

export const isToolName = (name: string): name is ToolName => Object.hasOwn(TOOLS, name);

/** The tools CROSSMAP_HIDE_TOOLS names (comma-separated). */
export function hiddenTools(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env[HIDE_ENV] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** The program's path, or undefined when it is missing (or hidden). */
export function findTool(name: ToolName): string | undefined {
  const tool: Tool = TOOLS[name];
  if (hiddenTools().includes(name)) return undefined;
  const candidates: (string | undefined)[] = [process.env[tool.env], ...tool.paths];
  for (const dir of (process.env.PATH ?? "").split(":")) if (dir) candidates.push(join(dir, name));
  return candidates.find((c): c is string => c !== undefined && c !== "" && existsSync(c));
}

/** The line a skipped file prints, and the closing lines repeat. */
export const skipLine = (name: ToolName, file: string): string =>
  `skipped ${file}: ${name} is missing (apt-get install ${TOOLS[name].debian})`;
