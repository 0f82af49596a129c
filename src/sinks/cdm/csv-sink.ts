// Writes mapped CDM records as one CSV file per table, as OHDSI ships them and its loaders and COPY read
// them: `PERSON.csv`, a header row, columns in DDL order, empty for NULL, ISO dates. Each file is published
// atomically at the end of the run. Ids come from the registry: kept in an LMDB directory (--id-map) so
// that the same record gets the same id in every run, else for this run only.
import { join } from "node:path";
import { AppError } from "../../errors.js";
import type { RunIssue } from "../../pipeline/types.js";
import { fileSink, type OutputSink } from "../../pipeline/writers.js";
import type { LoadedTable } from "./db-sink.js";
import { loadModel } from "./model.js";
import { IdRegistry } from "./registry.js";
import { type FileRegistryStore, openFileRegistry } from "./registry-stores.js";
import { type IdMode, RowConverter } from "./rows.js";

export interface CsvSinkOptions {
  dir: string;
  idMap?: string;
  ids?: IdMode;
  report: (issue: RunIssue) => Promise<void> | void;
}

export interface CsvSink extends OutputSink {
  tables(): LoadedTable[];
}

export async function openCsvSink(options: CsvSinkOptions): Promise<CsvSink> {
  // Column order is the same in every dialect's DDL.
  const model = loadModel("postgresql");
  const registry = new IdRegistry();
  let store: FileRegistryStore | undefined;
  if (options.idMap) {
    try {
      store = await openFileRegistry(options.idMap);
    } catch (err) {
      throw new AppError(
        400,
        "output_error",
        `--id-map ${options.idMap}: cannot open it: ${(err as Error).message}`,
      );
    }
    await store.load(registry);
  }
  const pending: RunIssue[] = [];
  const converter = new RowConverter(registry, (i) => pending.push(i), options.ids ?? "registry");
  const files = new Map<string, OutputSink>();
  const closeStore = async () => {
    const s = store;
    store = undefined;
    await s?.close();
  };
  return {
    async write(entity, text) {
      const table = model.tables.get(entity);
      if (!table) {
        throw new AppError(
          400,
          "not_a_cdm_table",
          `the crossmap writes ${JSON.stringify(entity)}, which is not a table of the CDM v5.4 DDL`,
        );
      }
      let file = files.get(entity);
      if (!file) {
        file = await fileSink(join(options.dir, `${entity.toUpperCase()}.csv`));
        files.set(entity, file);
        await file.write("", `${table.columns.map((c) => c.name).join(",")}\n`);
      }
      let out = "";
      converter.convert(table, text, (line) => {
        out += line;
      });
      await file.write("", out);
      store?.save(registry.changes());
      registry.commit();
      for (const issue of pending.splice(0)) await options.report(issue);
    },
    async commit() {
      for (const f of files.values()) await f.commit();
      await closeStore();
    },
    async abort() {
      for (const f of files.values()) await f.abort();
      await closeStore();
    },
    tables() {
      return [...converter.counts.entries()].map(([table, c]) => ({ table, ...c, committed: c.written }));
    },
  };
}
