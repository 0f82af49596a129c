// Issue 28's acceptance (acceptance.ts) on PGlite in this process: the official PostgreSQL DDL, keys and indices, unmodified.
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../../src/sinks/db/client.js";
import { acceptance, withVocabulary } from "./acceptance.js";
import { cli, FHIR_BUNDLES } from "./support.js";

withVocabulary();

describe("a CDM v5.4 database on PGlite (the official PostgreSQL DDL, keys and indices, unmodified)", () => {
  it("loads both samples completely, idempotently and incrementally, and finishes with every key in force", async () => {
    const url = "pglite:memory";
    // Held for the whole flow: the in-memory database lives as long as a client has it open.
    const holder = await openDatabase(url);
    try {
      const { finish, keys } = await acceptance(cli, url, () => openDatabase(url));
      expect(finish.lines.slice(3)).toEqual([
        "  28 primary keys in force (28 applied now); 176 foreign keys in force (176 applied now)",
        "  indices: 70 created, 0 already there",
      ]);
      expect(keys).toEqual([
        { kind: "FOREIGN KEY", n: 176 },
        { kind: "PRIMARY KEY", n: 28 },
      ]);
      // A load into a finished database: the foreign keys are dropped for it and `finish` applies them again.
      const more = await cli(
        "map",
        "--from",
        "fhir_r4",
        "--to",
        "omop_cdm_v5.4",
        "--format",
        "fhir-bundle",
        "--workers",
        "1",
        "--db",
        url,
        FHIR_BUNDLES[0]!,
      );
      expect(more.lines).toContain(
        "crossmap map: 176 foreign keys of pglite:memory dropped for the load; `crossmap db finish` applies them again",
      );
      const refinish = await cli("db", "finish", url);
      expect(refinish.lines.slice(3)).toEqual([
        "  28 primary keys in force (0 applied now); 176 foreign keys in force (176 applied now)",
        "  indices: 0 created, 70 already there",
      ]);
    } finally {
      await holder.close();
    }
  }, 600_000);
});
