// Loads Athena vocabulary files (CONCEPT.csv, VOCABULARY.csv, ... in either Athena's TAB/YYYYMMDD form or
// the comma/ISO export) into the CDM's vocabulary tables, streaming: each parsed chunk of a file becomes
// one COPY, with the parser paused meanwhile, so memory stays flat for a full 6-million-concept download.
import { createReadStream, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import Papa from "papaparse";
import { AppError } from "../../errors.js";
import { detectForm, normalizeDate, parseConfig } from "../../vocab/athena-files.js";
import type { SqlClient } from "../db/client.js";
import { qualified } from "../db/client.js";
import type { CdmModel } from "./model.js";
import { csvText, truncate } from "./values.js";

export interface VocabLoad {
  table: string;
  file: string;
  rows: number;
  /** The table held rows already: the file was not loaded. */
  kept?: number;
  /** Texts longer than their column, cut to fit. */
  truncated: number;
}

/** The vocabulary files of `dir` by table: `CONCEPT.csv` (or `concept.csv`) for `concept`. */
export function vocabularyFiles(dir: string, model: CdmModel): Map<string, string> {
  if (!existsSync(dir)) throw new AppError(400, "vocab_dir", `--vocab-dir ${dir}: no such directory`);
  const names = new Map(readdirSync(dir).map((f) => [f.toLowerCase(), f]));
  const files = new Map<string, string>();
  for (const table of model.vocabularyTables) {
    const found = names.get(`${table}.csv`);
    if (found) files.set(table, join(dir, found));
  }
  if (!files.has("concept")) {
    throw new AppError(
      400,
      "vocab_dir",
      `--vocab-dir ${dir} holds no CONCEPT.csv: not an Athena vocabulary download`,
    );
  }
  return files;
}

export async function loadVocabulary(
  client: SqlClient,
  model: CdmModel,
  dir: string,
  progress?: (table: string, rows: number) => void,
): Promise<VocabLoad[]> {
  const files = vocabularyFiles(dir, model);
  const loads: VocabLoad[] = [];
  for (const [table, file] of files) {
    const [row] = await client.query<{ n: number }>(`SELECT count(*) AS n FROM ${qualified(client, table)}`);
    if ((row?.n ?? 0) > 0) {
      loads.push({ table, file, rows: 0, kept: row!.n, truncated: 0 });
      continue;
    }
    loads.push(await client.transaction(() => loadFile(client, model, table, file, progress)));
  }
  return loads;
}

function loadFile(
  client: SqlClient,
  model: CdmModel,
  table: string,
  file: string,
  progress?: (table: string, rows: number) => void,
): Promise<VocabLoad> {
  const ddl = model.ddl.tables.get(table)!;
  const form = detectForm(file);
  const load: VocabLoad = { table, file, rows: 0, truncated: 0 };
  let positions: number[] | undefined;
  let columns: string[] = [];
  return new Promise<VocabLoad>((resolve, reject) => {
    const input = createReadStream(file, { highWaterMark: 1 << 20 });
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      input.destroy();
      reject(err);
    };
    input.on("error", (err) =>
      fail(new AppError(400, "vocab_read_failed", `cannot read ${file}: ${err.message}`)),
    );
    Papa.parse<string[]>(input, {
      ...parseConfig(form),
      chunk(results, parser) {
        if (failed) return;
        let text = "";
        for (const fields of results.data) {
          if (fields.length === 1 && fields[0] === "") continue;
          if (!positions) {
            if (fields[0]?.charCodeAt(0) === 0xfeff) fields[0] = fields[0].slice(1);
            const header = fields.map((f) => f.trim().toLowerCase());
            const unknown = header.filter((h) => !ddl.columns.some((c) => c.name === h));
            if (unknown.length > 0) {
              return fail(
                new AppError(400, "vocab_bad_header", `${file}: ${table} has no column ${unknown[0]}`),
              );
            }
            columns = header;
            positions = header.map((h) => ddl.columns.findIndex((c) => c.name === h));
            continue;
          }
          let line = "";
          for (let i = 0; i < positions.length; i++) {
            const c = ddl.columns[positions[i]!]!;
            let v = fields[i] ?? "";
            if (v !== "" && c.kind === "date") {
              const d = normalizeDate(v);
              if (d === undefined) {
                return fail(
                  new AppError(
                    400,
                    "vocab_bad_value",
                    `${file}: ${c.name} ${JSON.stringify(v)} is not a date (YYYYMMDD or YYYY-MM-DD)`,
                  ),
                );
              }
              v = d;
            } else if (c.kind === "text" && c.maxLength !== undefined && v.length > c.maxLength) {
              const cut = truncate(v, c.maxLength);
              if (cut !== v) load.truncated++;
              v = cut;
            }
            // Athena writes an empty field for NULL; a text that is really empty cannot be told apart.
            line += (i > 0 ? "," : "") + (v === "" ? "" : csvText(v));
          }
          text += `${line}\n`;
          load.rows++;
        }
        if (text === "") return;
        parser.pause();
        client.copyIn(table, columns, [text]).then(() => {
          progress?.(table, load.rows);
          parser.resume();
        }, fail);
      },
      complete() {
        if (!failed) resolve(load);
      },
      error(err: Error) {
        fail(new AppError(400, "vocab_read_failed", `cannot parse ${file}: ${err.message}`));
      },
    });
  });
}
