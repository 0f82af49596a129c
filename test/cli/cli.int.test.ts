// The built CLI as a child process: projects, keys, and serve (first-start key, port 0, SIGTERM).
import { type ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = new URL("../..", import.meta.url).pathname;
const bin = join(root, "bin/crossmap.js");
const exec = promisify(execFile);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "crossmap-cli-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [bin, ...args], { cwd: root });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

interface Served {
  proc: ChildProcessWithoutNullStreams;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts `crossmap serve --port 0` and resolves once it has logged the address it listens on. */
function serve(dataDir: string): Promise<Served> {
  const proc = spawn(process.execPath, [bin, "serve", "--port", "0", "--data-dir", dataDir, "--init"], {
    cwd: root,
  });
  let out = "";
  let err = "";
  proc.stderr.on("data", (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  return new Promise((resolve, reject) => {
    proc.stdout.on("data", (d) => {
      out += d;
      const m = /"msg":"listening","url":"([^"]+)"/.exec(out);
      if (m) resolve({ proc, url: m[1]!, stdout: () => out, stderr: () => err, exited });
    });
    exited.then((code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

describe("projects and keys", () => {
  let projectId: string;

  it("projects create prints the project as JSON", async () => {
    const r = await cli(
      "projects",
      "create",
      "Pilot",
      "--target-model",
      "omop_cdm_v5.4",
      "--vocabulary",
      "SNOMED",
      "--vocabulary",
      "LOINC",
      "--data-dir",
      dir,
    );
    expect(r.code).toBe(0);
    const project = JSON.parse(r.stdout);
    expect(project).toMatchObject({
      name: "Pilot",
      target_model: "omop_cdm_v5.4",
      vocabularies: ["SNOMED", "LOINC"],
      description: null,
    });
    projectId = project.id;
    const list = JSON.parse((await cli("projects", "list", "--data-dir", dir)).stdout);
    expect(list.projects.map((p: { id: string }) => p.id)).toEqual([projectId]);
  });

  it("keys create prints the key once; keys list never shows a secret or hash; revoke marks it", async () => {
    const admin = await cli("keys", "create", "--admin", "--data-dir", dir);
    expect(admin.code).toBe(0);
    const a = JSON.parse(admin.stdout);
    expect(a).toMatchObject({ scope: "admin", project_id: null, revoked_at: null });
    expect(a.key).toMatch(/^cmk_/);

    const w = JSON.parse(
      (
        await cli(
          "keys",
          "create",
          "--project",
          projectId,
          "--scope",
          "write",
          "--name",
          "Dr. Ada",
          "--data-dir",
          dir,
        )
      ).stdout,
    );
    expect(w).toMatchObject({ scope: "write", project_id: projectId, name: "Dr. Ada" });

    const listed = await cli("keys", "list", "--data-dir", dir);
    expect(listed.stdout).not.toContain(a.key);
    expect(listed.stdout).not.toContain("hash");
    const keys = JSON.parse(listed.stdout).keys as { id: string; name: string | null }[];
    expect(keys.map((k) => [k.id, k.name]).sort()).toEqual(
      [
        [a.id, null],
        [w.id, "Dr. Ada"],
      ].sort(),
    );

    const revoked = await cli("keys", "revoke", w.id, "--data-dir", dir);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: w.id, revoked_at: expect.any(String) });
  });

  it("bad usage exits 2 with a message", async () => {
    const both = await cli("keys", "create", "--admin", "--project", "x", "--data-dir", dir);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe("crossmap: --admin cannot be combined with --project or --scope\n");
    const scope = await cli("keys", "create", "--project", projectId, "--scope", "admin", "--data-dir", dir);
    expect(scope.stderr).toBe("crossmap: --scope must be read or write\n");
    const ghost = await cli("keys", "create", "--project", "nope", "--scope", "read", "--data-dir", dir);
    expect(ghost.code).toBe(2);
    expect(ghost.stderr).toBe("crossmap: Project nope not found\n");
    const blank = await cli("keys", "create", "--admin", "--name", " ", "--data-dir", dir);
    expect(blank.stderr).toBe("crossmap: --name must be 1 to 200 characters without control characters\n");
    const unknown = await cli("keys", "revoke", "key_000000000000", "--data-dir", dir);
    expect(unknown.stderr).toBe("crossmap: API key key_000000000000 not found\n");
  });
});

describe("serve", () => {
  it("prints an admin key once on first start, serves on port 0, and stops cleanly on SIGTERM", async () => {
    const data = join(dir, "served");
    const first = await serve(data);
    expect(first.stderr()).toMatch(
      new RegExp(`^crossmap serve: created data directory ${data} \\(a new, empty database\\)\\n`),
    );
    const m = /created admin API key (key_[0-9a-f]+)\. It is shown only this once:\n(cmk_\S+)\n/.exec(
      first.stderr(),
    );
    expect(m).not.toBeNull();
    const admin = m![2]!;
    const auth = { authorization: `Bearer ${admin}` };

    expect(await (await fetch(`${first.url}/healthz`)).json()).toEqual({ status: "ok" });
    const created = await fetch(`${first.url}/api/v1/projects`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ name: "served" }),
    });
    expect(created.status).toBe(201);
    const project = (await created.json()) as { id: string };

    // A key made by the CLI while the server runs works at once, and stops at once when revoked.
    const made = JSON.parse(
      (await cli("keys", "create", "--project", project.id, "--scope", "read", "--data-dir", data)).stdout,
    );
    const pull = `${first.url}/api/v1/sync/projects/${project.id}/schema-mappings`;
    expect((await fetch(pull, { headers: { authorization: `Bearer ${made.key}` } })).status).toBe(200);
    await cli("keys", "revoke", made.id, "--data-dir", data);
    expect((await fetch(pull, { headers: { authorization: `Bearer ${made.key}` } })).status).toBe(401);

    first.proc.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    const lines = first
      .stdout()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.msg === "request")).toHaveLength(4);
    expect(lines.map((l) => l.msg).slice(-2)).toEqual(["shutting down", "stopped"]);
    expect(first.stdout()).not.toContain(admin);

    const second = await serve(data);
    expect(second.stderr()).toBe("");
    const still = await fetch(`${second.url}/api/v1/projects`, { headers: auth });
    expect(((await still.json()) as { projects: { id: string }[] }).projects.map((p) => p.id)).toEqual([
      project.id,
    ]);
    second.proc.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  it("on SIGTERM finishes a request already in flight before exiting", async () => {
    const data = join(dir, "graceful");
    const s = await serve(data);
    const admin = /^(cmk_\S+)$/m.exec(s.stderr())![1]!;
    const { port } = new URL(s.url);
    // Send the headers and half the body, signal, then the rest: the reply must still arrive.
    const reply = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: "/api/v1/projects",
          headers: {
            authorization: `Bearer ${admin}`,
            "content-type": "application/json",
            "transfer-encoding": "chunked",
          },
        },
        (res) => {
          let body = "";
          res.on("data", (d) => {
            body += d;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      req.write('{"name": ');
      setTimeout(() => {
        s.proc.kill("SIGTERM");
        setTimeout(() => req.end('"late"}'), 200);
      }, 100);
    });
    const r = await reply;
    expect(r.status).toBe(201);
    expect(JSON.parse(r.body)).toMatchObject({ name: "late" });
    expect(await s.exited).toBe(0);
    const projects = JSON.parse((await cli("projects", "list", "--data-dir", data)).stdout).projects;
    expect(projects.map((p: { name: string }) => p.name)).toEqual(["late"]);
  });

  it("a busy port is one line and exit 2, with no admin key made and no empty data directory left", async () => {
    const { createServer } = await import("node:net");
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const fresh = join(dir, "busy-fresh");
      const r = await cli("serve", "--port", String(port), "--data-dir", fresh, "--init");
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `crossmap serve: port ${port} is in use (another crossmap serve, or another program); stop it or choose another port with --port\n`,
      );
      expect(existsSync(fresh)).toBe(false);
      // An existing, empty data directory gets no admin key it would never show again.
      const existing = join(dir, "busy-existing");
      mkdirSync(existing);
      const again = await cli("serve", "--port", String(port), "--data-dir", existing);
      expect(again.code).toBe(2);
      expect(again.stderr).not.toContain("cmk_");
      expect(JSON.parse((await cli("keys", "list", "--data-dir", existing)).stdout)).toEqual({ keys: [] });
    } finally {
      blocker.close();
    }
  });

  it("a --data-dir that does not exist is refused unless --init says to create it", async () => {
    const typo = join(dir, "dta");
    const message = `data directory ${typo} does not exist; check --data-dir, or pass --init to create a new, empty one`;
    for (const args of [
      ["serve", "--port", "0"],
      ["keys", "list"],
      ["projects", "create", "x"],
    ]) {
      const r = await cli(...args, "--data-dir", typo);
      expect([args[0], r.code, r.stderr]).toEqual([args[0], 2, `crossmap: ${message}\n`]);
    }
    expect(existsSync(typo)).toBe(false);
    const made = await cli("projects", "create", "x", "--data-dir", typo, "--init");
    expect(made.code).toBe(0);
    expect(made.stderr).toBe(`crossmap: created data directory ${typo} (a new, empty database)\n`);
    expect(JSON.parse((await cli("projects", "list", "--data-dir", typo)).stdout).projects).toHaveLength(1);
  });

  it("refuses a bad port with exit code 2", async () => {
    const r = await cli("serve", "--port", "http", "--data-dir", join(dir, "never"));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("crossmap: --port must be an integer from 0 to 65535, got http\n");
    const d = await cli("serve", "--durability", "maybe", "--data-dir", join(dir, "never"));
    expect(d.code).toBe(2);
    expect(d.stderr).toBe("crossmap: --durability must be flush or commit, got maybe\n");
    const o = await cli(
      "serve",
      "--cors-origin",
      "https://dash.example.org/",
      "--data-dir",
      join(dir, "never"),
    );
    expect(o.code).toBe(2);
    expect(o.stderr).toBe(
      "crossmap: --cors-origin must be an origin such as https://dashboard.example.org (scheme, host and port only), got https://dash.example.org/\n",
    );
  });
});
