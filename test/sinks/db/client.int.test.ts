// The SqlClient contract, run against every database it opens: PGlite in process, PostgreSQL over the wire
// (PGlite served on a socket, and Debian's PostgreSQL where installed) and DuckDB.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type SqlClient } from "../../../src/sinks/db/client.js";
import { DatabaseError } from "../../../src/sinks/db/errors.js";
import { startPgliteServer } from "../../support/pglite-server.js";
import { postgresAvailable, startPostgres } from "../../support/postgres-server.js";
import { describeWithTool } from "../../support/tool-suite.js";

interface Backend {
  name: string;
  /** PGlite's wire server does not speak COPY FROM STDIN's sub-protocol (it drops the connection). */
  copy: boolean;
  open(schema?: string): Promise<{ url: string; stop(): Promise<void> }>;
}

const temp = mkdtempSync(join(tmpdir(), "crossmap-client-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
let n = 0;

const backends: Backend[] = [
  { name: "pglite", copy: true, open: async () => ({ url: "pglite:memory", stop: async () => {} }) },
  {
    name: "postgresql (PGlite over the wire)",
    copy: false,
    open: async () => {
      const server = await startPgliteServer();
      return { url: server.url, stop: server.stop };
    },
  },
  {
    name: "duckdb",
    copy: true,
    open: async () => ({ url: join(temp, `db${++n}.duckdb`), stop: async () => {} }),
  },
];
if (!postgresAvailable()) {
  // Said in one line and listed at the end of the run (a failure in CI, which installs the package).
  describeWithTool("initdb", import.meta.url)("SqlClient on postgresql (server)", () => {
    it("runs against Debian's PostgreSQL", () => {});
  });
} else {
  backends.push({
    name: "postgresql (server)",
    copy: true,
    open: async () => {
      const server = await startPostgres();
      return { url: server.url, stop: server.stop };
    },
  });
}

describe.each(backends)("SqlClient on $name", (backend) => {
  let stop: () => Promise<void>;
  let db: SqlClient;
  let url: string;

  beforeAll(async () => {
    const started = await backend.open();
    stop = started.stop;
    url = started.url;
    db = await openDatabase(`${url}?schema=cdm`);
    await db.exec(`CREATE SCHEMA cdm; CREATE TABLE cdm.t (id integer NOT NULL, name varchar(20) NULL, d date NULL,
      ts timestamp NULL, n numeric NULL, big bigint NULL, flag boolean NULL)`);
  });
  afterAll(async () => {
    await db?.close();
    await stop?.();
  });

  it.runIf(backend.copy)(
    "loads CSV by COPY: empty is NULL, quoted empty is '', quotes, commas and newlines survive",
    async () => {
      expect(db.schema).toBe("cdm");
      await db.copyIn(
        "t",
        ["id", "name", "d", "ts", "n", "big"],
        [
          '1,,2020-01-02,2020-01-02 03:04:05,1.5,9007199254740993\n2,"",,,,\n',
          '3,"a ""b"", c\nd",2021-12-31,,0.25,42\n',
        ],
      );
      const rows = await db.query("SELECT id, name, d, ts, n, big, flag FROM t ORDER BY id");
      expect(rows).toEqual([
        {
          id: 1,
          name: null,
          d: "2020-01-02",
          ts: "2020-01-02 03:04:05",
          n: 1.5,
          big: "9007199254740993",
          flag: null,
        },
        { id: 2, name: "", d: null, ts: null, n: null, big: null, flag: null },
        { id: 3, name: 'a "b", c\nd', d: "2021-12-31", ts: null, n: 0.25, big: 42, flag: null },
      ]);
    },
  );

  it("binds $n parameters and returns counts as numbers", async () => {
    await db.exec("INSERT INTO cdm.t (id, name) VALUES (100, ''), (101, 'x')");
    expect(await db.query("SELECT count(*) AS c FROM t WHERE id >= $1 AND name = $2", [100, ""])).toEqual([
      { c: 1 },
    ]);
    await db.exec("DELETE FROM cdm.t WHERE id >= 100");
  });

  it("commits a transaction that resolves and rolls back one that throws", async () => {
    await db.transaction(() => db.exec("INSERT INTO cdm.t (id) VALUES (10)"));
    await expect(
      db.transaction(async () => {
        await db.exec("INSERT INTO cdm.t (id) VALUES (11)");
        throw new Error("stop");
      }),
    ).rejects.toThrow("stop");
    expect(await db.query("SELECT id FROM t WHERE id >= 10 ORDER BY id")).toEqual([{ id: 10 }]);
  });

  it("reports a failing statement as a DatabaseError naming the database", async () => {
    const err = await db.query("SELECT * FROM cdm.missing").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseError);
    const message = (err as DatabaseError).message;
    expect(message.startsWith(`${url}?schema=cdm: `)).toBe(true);
    expect(message).toMatch(/missing/);
    expect(message).not.toContain("\n");
  });

  it.runIf(backend.copy)(
    "rejects a COPY row that breaks the table (NOT NULL) and keeps the table as it was",
    async () => {
      const before = await db.query("SELECT count(*) AS c FROM t");
      await expect(db.transaction(() => db.copyIn("t", ["id", "name"], ["20,x\n", ",y\n"]))).rejects.toThrow(
        DatabaseError,
      );
      expect(await db.query("SELECT count(*) AS c FROM t")).toEqual(before);
    },
  );
});

/** A loopback port nothing listens on (a moment ago something did). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

describe("openDatabase", () => {
  it("names a refused connection without its password, in one line", async () => {
    const port = await closedPort();
    const url = `postgresql://postgres:secret@127.0.0.1:${port}/postgres`;
    const err = (await openDatabase(url).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(
      /^cannot open postgresql:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres: connect ECONNREFUSED 127\.0\.0\.1:\d+$/,
    );
  });

  it("rejects a URL it does not know", async () => {
    await expect(openDatabase("mysql://x")).rejects.toThrow(
      "database mysql://x: expected postgresql://user@host:port/db, a file ending in .duckdb, duckdb:PATH or pglite:DIR (each may end in ?schema=NAME)",
    );
    await expect(openDatabase("cdm.duckdb?schema=a-b")).rejects.toThrow(
      'database cdm.duckdb?schema=a-b: schema "a-b" is not a plain SQL name (letters, digits, _)',
    );
  });

  it("with create: false refuses a DuckDB file or PGlite directory that is not there, and makes none", async () => {
    const file = join(temp, "absent.duckdb");
    await expect(openDatabase(file, { create: false })).rejects.toThrow(
      `${file}: no such file, so no CDM tables; create them with \`crossmap db init\``,
    );
    const dir = join(temp, "absent-pglite");
    await expect(openDatabase(`pglite:${dir}`, { create: false })).rejects.toThrow(
      `pglite:${dir}: no such directory, so no CDM tables; create them with \`crossmap db init\``,
    );
    expect([existsSync(file), existsSync(dir)]).toEqual([false, false]);
    const memory = await openDatabase("duckdb:memory", { create: false });
    await memory.close();
  });

  it("makes a DuckDB file that is not there by default (db init), and opens it again with create: false", async () => {
    const file = join(temp, "made.duckdb");
    await (await openDatabase(file)).close();
    expect(existsSync(file)).toBe(true);
    const again = await openDatabase(file, { create: false });
    expect(await again.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
    await again.close();
  });
});
