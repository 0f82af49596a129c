// `npm run bench [-- NAME [ARGS...]]`: runs one named benchmark, or all of them in turn.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const cases: Record<string, string> = {
  mapper: "mapper.ts",
  "map-throughput": "map-throughput.ts",
  review: "review-load.ts",
  "cross-mapping-http": "cross-mapping-http.ts",
  vocab: "vocab.ts",
  suggest: "suggest.ts",
  "schema-suggest": "schema-suggest.ts",
  hl7v2: "hl7v2.ts",
  workbench: "workbench.ts",
  nats: "nats.ts",
  "fhir-server": "fhir-server.ts",
  mllp: "mllp.ts",
  "data-load": "data-load.ts",
  "omop-db": "omop-db.ts",
};

const [name, ...args] = process.argv.slice(2);
if (name && !cases[name]) {
  console.log(`usage: npm run bench [-- <name> [args]]\nbenchmarks: ${Object.keys(cases).join(", ")}`);
  process.exit(2);
}
for (const one of name ? [name] : Object.keys(cases)) {
  const file = fileURLToPath(new URL(cases[one] as string, import.meta.url));
  if (!existsSync(file)) throw new Error(`missing ${file}`);
  if (!name) console.log(`== ${one}`);
  const r = spawnSync(process.execPath, ["--import", "tsx", file, ...(name ? args : [])], {
    stdio: "inherit",
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
