// Issue 28's acceptance (acceptance.ts) on DuckDB, through CLI processes.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../../src/sinks/db/client.js";
import { acceptance, temp, withVocabulary } from "./acceptance.js";
import { cliProcess } from "./support.js";

withVocabulary();

describe("a CDM v5.4 database in DuckDB, through CLI processes", () => {
  it("loads both samples completely, idempotently and incrementally; finish applies the keys and verifies the foreign keys", async () => {
    const url = join(temp, "cdm.duckdb");
    const { finish, keys } = await acceptance(cliProcess, url, () => openDatabase(url));
    expect(finish.lines.slice(3)).toEqual([
      "  28 primary keys in force (28 applied now); 176 foreign keys verified (DuckDB cannot add them to existing tables)",
      "  indices: 70 created, 0 already there",
    ]);
    expect(keys).toEqual([{ kind: "PRIMARY KEY", n: 28 }]);
  }, 600_000);
});
