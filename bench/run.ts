// `npm run bench [-- NAME [ARGS...]]`: runs one named benchmark, or lists them.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const cases: Record<string, string> = {
  mapper: "mapper.ts",
  review: "review-load.ts",
};

const [name, ...args] = process.argv.slice(2);
if (!name || !cases[name]) {
  console.log(`usage: npm run bench -- <name> [args]\nbenchmarks: ${Object.keys(cases).join(", ")}`);
  process.exit(name ? 2 : 0);
}
const file = fileURLToPath(new URL(cases[name] as string, import.meta.url));
if (!existsSync(file)) throw new Error(`missing ${file}`);
const r = spawnSync(process.execPath, ["--import", "tsx", file, ...args], { stdio: "inherit" });
process.exit(r.status ?? 1);
