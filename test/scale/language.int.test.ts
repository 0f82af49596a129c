// `crossmap map --nats` with crossmaps of the full language: several records per record, records gathered
// across batches and files into others, and --param values. Workers map; the coordinator gathers (as the
// main thread does locally), so stdout, per-entity files and --errors are byte for byte a local run's.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";
import {
  cleanUp,
  describeWithNats,
  killAll,
  type NatsServer,
  startNatsServer,
  startWorker,
} from "./nats-harness.js";

const describeNats = describeWithNats(import.meta.url);

let server: NatsServer;
let dir: string;

/** The golden rows of a language case as one NDJSON file per source entity (records only). */
function split(name: string): string[] {
  const lines = readFileSync(`test/golden/${name}/input.ndjson`, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as { entity: string; record: unknown });
  const files: string[] = [];
  mkdirSync(join(dir, name));
  for (const entity of new Set(lines.map((l) => l.entity))) {
    // Named after the entity: that is how the run tells what the records are.
    const file = join(dir, name, `${entity}.ndjson`);
    const rows = lines.filter((l) => l.entity === entity).map((l) => `${JSON.stringify(l.record)}\n`);
    writeFileSync(file, rows.join(""));
    files.push(file);
  }
  return files;
}

/** A local run and a NATS run of the same command: stdout, --errors and per-entity files, and exit codes. */
async function both(args: string[], files: string[]) {
  const out = (kind: string) => {
    const d = join(dir, `${kind}-${Math.random().toString(36).slice(2)}`);
    mkdirSync(d);
    return d;
  };
  const run = async (extra: string[]) => {
    const d = out(extra.length ? "nats" : "local");
    const stdout = await runCli(["map", "-q", ...args, ...extra, "--errors", join(d, "errors"), ...files]);
    const perEntity = await runCli(["map", "-q", ...args, ...extra, "--out-dir", join(d, "out"), ...files]);
    const entities = Object.fromEntries(
      readdirSync(join(d, "out")).map((f) => [f, readFileSync(join(d, "out", f), "utf8")]),
    );
    return {
      codes: [stdout.code, perEntity.code],
      stdout: stdout.stdout,
      stderr: stdout.stderr,
      errors: readFileSync(join(d, "errors"), "utf8"),
      entities,
    };
  };
  return { local: await run([]), nats: await run(["--nats", server.url]) };
}

beforeAll(async () => {
  server = await startNatsServer();
  dir = mkdtempSync(join(tmpdir(), "crossmap-nats-lang-"));
});
afterEach(() => cleanUp(server?.url));
afterAll(async () => {
  await killAll();
  await server?.stop();
});

describeNats("crossmap map --nats with the crossmap language", () => {
  it("writes several records per record, gathered records and their orphans as a local run does", async () => {
    const worker = await startWorker(server.url, "lang");
    // Visits come after the conditions gathered into them, in another file: the coordinator must hold the
    // children of every batch until the run ends, exactly as the local main thread does.
    const gather = await both(
      ["--crossmap", "test/golden/lang-openehr-gather/crossmap.yaml"],
      split("lang-openehr-gather"),
    );
    expect(gather.nats).toEqual(gather.local);
    expect(gather.local.codes).toEqual([1, 1]);
    expect(gather.local.stdout.trimEnd().split("\n")).toHaveLength(3);
    expect(gather.local.errors).toContain('"code":"orphan_record"');

    const components = await both(
      ["--crossmap", "test/golden/lang-fhir-components/crossmap.yaml"],
      split("lang-fhir-components"),
    );
    expect(components.nats).toEqual(components.local);
    expect(Object.keys(components.local.entities).sort()).toEqual(
      Object.keys(components.nats.entities).sort(),
    );
    expect(Object.keys(components.local.entities).length).toBeGreaterThan(1);
    worker.proc.kill("SIGTERM");
    expect(await worker.proc.exited()).toBe(0);
  }, 180_000);

  it("sends --param values to the workers", async () => {
    const crossmap = join(dir, "param.yaml");
    writeFileSync(
      crossmap,
      [
        "source: omop_cdm_v5.4",
        "target: fhir_r4",
        "parameters:",
        "  system: {default: urn:default}",
        "entity_map:",
        "  person: Patient",
        "field_map:",
        "  person.person_id: {target: Patient.id, transform: str}",
        "  person.$param.system: {target: 'Patient.identifier[0].system'}",
        "",
      ].join("\n"),
    );
    mkdirSync(join(dir, "param"));
    const input = join(dir, "param", "person.ndjson");
    writeFileSync(input, '{"person_id": 1}\n{"person_id": 2}\n');
    const worker = await startWorker(server.url, "param");
    const args = ["map", "-q", "--crossmap", crossmap, "--param", "system=urn:site", input];
    const local = await runCli(args);
    const nats = await runCli([...args, "--nats", server.url]);
    expect(local.stdout).toBe(
      '{"id":"1","identifier":[{"system":"urn:site"}]}\n{"id":"2","identifier":[{"system":"urn:site"}]}\n',
    );
    expect([nats.code, nats.stdout]).toEqual([0, local.stdout]);
    worker.proc.kill("SIGTERM");
    expect(await worker.proc.exited()).toBe(0);
  }, 120_000);
});
