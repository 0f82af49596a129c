// Issue 28's acceptance (acceptance.ts) on Debian's PostgreSQL server (a private cluster), through CLI processes; skipped
// with one line where PostgreSQL is not installed (a failure in CI: .ci/run installs it).
import { expect, it } from "vitest";
import { openDatabase } from "../../../src/sinks/db/client.js";
import { startPostgres } from "../../support/postgres-server.js";
import { describeWithTool } from "../../support/tool-suite.js";
import { acceptance, withVocabulary } from "./acceptance.js";
import { cliProcess } from "./support.js";

withVocabulary();

describeWithTool("initdb", import.meta.url)(
  "a CDM v5.4 database on Debian's PostgreSQL server, through CLI processes",
  () => {
    it("loads both samples by COPY FROM STDIN into schema cdm and finishes with every key in force", async () => {
      const server = await startPostgres();
      try {
        const url = `${server.url}?schema=cdm`;
        const { finish, keys } = await acceptance(cliProcess, url, () => openDatabase(url));
        expect(finish.lines.slice(3)).toEqual([
          "  28 primary keys in force (28 applied now); 176 foreign keys in force (176 applied now)",
          "  indices: 70 created, 0 already there",
        ]);
        expect(keys).toEqual([
          { kind: "FOREIGN KEY", n: 176 },
          { kind: "PRIMARY KEY", n: 28 },
        ]);
        // The registry's large texts are compressed with lz4 (Debian's server has it), not pglz.
        const db = await openDatabase(url);
        try {
          const rows = await db.query<{ attname: string; attcompression: string }>(
            "SELECT attname, attcompression::text AS attcompression FROM pg_attribute " +
              "WHERE attrelid = 'cdm.crossmap_id_map'::regclass AND attnum > 0 ORDER BY attnum",
          );
          expect(rows).toEqual([
            { attname: "namespace", attcompression: "" },
            { attname: "source_keys", attcompression: "l" },
            { attname: "ids", attcompression: "l" },
            { attname: "row_hashes", attcompression: "l" },
          ]);
        } finally {
          await db.close();
        }
      } finally {
        await server.stop();
      }
    }, 600_000);
  },
);
