// Streams one Athena-style table (CONCEPT.csv, CONCEPT_RELATIONSHIP.csv, ...) row by row through papaparse,
// in either form: Athena's TAB-separated YYYYMMDD files or the comma-separated, quoted, ISO-dated export.
import { closeSync, createReadStream, openSync, readSync, statSync } from "node:fs";
import Papa from "papaparse";
import { AppError } from "../errors.js";

export type SourceForm = "athena-tab" | "csv-iso";

/** The form of a file, decided by its header line: Athena headers are TAB-separated. */
export function detectForm(file: string): SourceForm {
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const firstLine = buf.toString("utf8", 0, n).split(/\r?\n/, 1)[0] ?? "";
    return firstLine.includes("\t") ? "athena-tab" : "csv-iso";
  } finally {
    closeSync(fd);
  }
}

function startsWithBom(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.alloc(3);
    return readSync(fd, buf, 0, 3, 0) === 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
  } finally {
    closeSync(fd);
  }
}

/** Papaparse settings for a form. Shared with the benchmark so its parse-only baseline parses identically. */
export function parseConfig(form: SourceForm): Papa.ParseConfig {
  // Athena does not quote: names such as `"Heel" spur` carry literal quotes, so quote handling must be off
  // (fastMode splits on TAB and newline only). The comma export quotes per RFC 4180.
  return form === "athena-tab" ? { delimiter: "\t", fastMode: true } : { delimiter: ",", quoteChar: '"' };
}

/** `20991231` and `2099-12-31` -> `2099-12-31`; anything else -> undefined (never guessed). */
export function normalizeDate(value: string): string | undefined {
  if (value.length === 8 && /^\d{8}$/.test(value)) {
    return `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}`;
  }
  if (value.length === 10 && /^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  return undefined;
}

export interface TableHandlers {
  /** Receives the lower-cased header names; returns the row handler, or throws AppError for a bad header. */
  header(columns: string[]): (fields: string[], line: number) => void;
  /** A row papaparse itself could not read (e.g. an unterminated quote). */
  parseError(line: number, message: string): void;
  /** Bytes of the file read so far (for progress). */
  progress?(bytesRead: number, totalBytes: number): void;
}

/** Streams `file`; resolves to the number of data rows seen (header and blank lines excluded). */
export function readTable(file: string, form: SourceForm, handlers: TableHandlers): Promise<number> {
  const totalBytes = statSync(file).size;
  // A BOM is left out before parsing: papaparse would read it as part of the first cell, and a quoted
  // header cell (`\uFEFF"concept_id"`) would then keep its quotes and not be found.
  const input = createReadStream(file, { highWaterMark: 1 << 20, start: startsWithBom(file) ? 3 : 0 });
  const countEmbeddedNewlines = form === "csv-iso";
  let onRow: ((fields: string[], line: number) => void) | undefined;
  let line = 0;
  let rows = 0;
  if (handlers.progress) {
    const progress = handlers.progress;
    input.on("data", () => progress(input.bytesRead, totalBytes));
  }
  return new Promise<number>((resolve, reject) => {
    const fail = (err: unknown) => {
      input.destroy();
      reject(err);
    };
    input.on("error", (err) =>
      reject(new AppError(500, "vocab_read_failed", `cannot read ${file}: ${err.message}`)),
    );
    Papa.parse<string[]>(input, {
      ...parseConfig(form),
      chunk(results, parser) {
        try {
          const data = results.data;
          // Papaparse reports errors by row index within the chunk; turn them into file lines.
          const badRows = new Map<number, string>();
          for (const e of results.errors) if (typeof e.row === "number") badRows.set(e.row, e.message);
          for (let i = 0; i < data.length; i++) {
            const fields = data[i]!;
            line++;
            if (fields.length === 1 && fields[0] === "") continue; // blank line, typically the last one
            const startLine = line;
            if (countEmbeddedNewlines) {
              for (const f of fields)
                for (let at = f.indexOf("\n"); at >= 0; at = f.indexOf("\n", at + 1)) line++;
            }
            if (!onRow) {
              onRow = handlers.header(fields.map((f) => f.trim().toLowerCase()));
              continue;
            }
            rows++;
            const bad = badRows.get(i);
            if (bad !== undefined) handlers.parseError(startLine, bad);
            else onRow(fields, startLine);
          }
        } catch (err) {
          fail(err); // before abort(), which calls complete() synchronously
          parser.abort();
        }
      },
      complete() {
        resolve(rows);
      },
      error(err: Error) {
        fail(new AppError(500, "vocab_read_failed", `cannot parse ${file}: ${err.message}`));
      },
    });
  });
}
