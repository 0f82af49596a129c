// `crossmap db init URL [--vocab-dir DIR]` and `crossmap db finish URL`: make a CDM v5.4 database from the
// official DDL and an Athena vocabulary, and complete it after loading (derived tables, keys, indices).
import type { Command } from "commander";

export function registerDb(program: Command): void {
  const db = program
    .command("db")
    .description("Create and complete OMOP CDM v5.4 databases (PostgreSQL, DuckDB) for `map --db`.");
  db.command("init")
    .description("Create the CDM v5.4 tables from the official DDL and load an Athena vocabulary.")
    .argument("<url>", "postgresql://user@host:port/db[?schema=NAME], FILE.duckdb or duckdb:PATH")
    .option("--vocab-dir <dir>", "Athena vocabulary files (CONCEPT.csv ...; TAB/YYYYMMDD or comma/ISO)")
    .option("-q, --quiet", "no progress and no summary on stderr")
    .action(async (url: string, flags: { vocabDir?: string; quiet?: boolean }) => {
      process.exitCode = await (await import("./db-commands.js")).dbInit(url, flags);
    });
  db.command("finish")
    .description(
      "Derive observation_period, condition_era and drug_era, then apply the official primary keys, foreign keys and indices.",
    )
    .argument("<url>", "postgresql://user@host:port/db[?schema=NAME], FILE.duckdb or duckdb:PATH")
    .option("-q, --quiet", "no summary on stderr")
    .action(async (url: string, flags: { quiet?: boolean }) => {
      process.exitCode = await (await import("./db-commands.js")).dbFinish(url, flags);
    });
}
