// `crossmap db init`: the CDM v5.4 tables from the official DDL (only those missing, so it can be run
// again), the id registry's table beside them, and the Athena vocabulary files into the vocabulary tables.
import type { SqlClient } from "../db/client.js";
import { quoteIdent } from "../db/client.js";
import { inSchema } from "./ddl.js";
import { loadModel } from "./model.js";
import { registryDdl } from "./registry-stores.js";
import { existingTables } from "./schema-state.js";
import { loadVocabulary, type VocabLoad } from "./vocab-load.js";

export interface InitReport {
  created: string[];
  existing: string[];
  vocabulary: VocabLoad[];
}

export async function initDatabase(
  client: SqlClient,
  options: { vocabDir?: string; progress?: (table: string, rows: number) => void } = {},
): Promise<InitReport> {
  const model = loadModel(client.dialect);
  await client.exec(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(client.schema)}`);
  const have = await existingTables(client);
  const created: string[] = [];
  const existing: string[] = [];
  await client.transaction(async () => {
    for (const { table, sql } of model.ddl.creates) {
      if (have.has(table)) {
        existing.push(table);
        continue;
      }
      await client.exec(inSchema(sql, client.schema));
      created.push(table);
    }
    await client.exec(registryDdl(client));
  });
  const vocabulary = options.vocabDir
    ? await loadVocabulary(client, model, options.vocabDir, options.progress)
    : [];
  return { created, existing, vocabulary };
}
