// The work of `crossmap db init` and `crossmap db finish` (see db.ts), with their output on stderr.

import { openDatabase } from "../sinks/db/client.js";

export async function dbInit(url: string, flags: { vocabDir?: string; quiet?: boolean }): Promise<number> {
  const { initDatabase } = await import("../sinks/cdm/init.js");
  const stderr = process.stderr;
  const client = await openDatabase(url);
  try {
    const tty = !flags.quiet && stderr.isTTY === true;
    const report = await initDatabase(client, {
      ...(flags.vocabDir ? { vocabDir: flags.vocabDir } : {}),
      progress: (table, rows) => {
        if (tty) stderr.write(`\r\x1b[K${table}: ${rows.toLocaleString("en-US")} rows`);
      },
    });
    if (tty && report.vocabulary.length > 0) stderr.write("\r\x1b[K");
    if (!flags.quiet) {
      stderr.write(
        `crossmap db init: ${client.display}: ${report.created.length} CDM v5.4 tables created` +
          (report.existing.length > 0 ? `, ${report.existing.length} already there` : "") +
          ` (schema ${client.schema})\n`,
      );
      for (const v of report.vocabulary) {
        stderr.write(
          v.kept !== undefined
            ? `  ${v.table}: ${v.kept.toLocaleString("en-US")} rows already there, ${v.file} not loaded\n`
            : `  ${v.table}: ${v.rows.toLocaleString("en-US")} rows from ${v.file}` +
                (v.truncated > 0 ? ` (${v.truncated} texts cut to their column's length)` : "") +
                "\n",
        );
      }
    }
    return 0;
  } finally {
    await client.close();
  }
}

export async function dbFinish(url: string, flags: { quiet?: boolean }): Promise<number> {
  const { finishDatabase, formatFinish, violationsError } = await import("../sinks/cdm/finish.js");
  // Only `db init` makes a database; finishing one that is not there would leave an empty file behind.
  const client = await openDatabase(url, { create: false });
  try {
    const report = await finishDatabase(client);
    if (!flags.quiet) for (const line of formatFinish(client, report)) process.stderr.write(`${line}\n`);
    const failed = violationsError(client, report);
    if (failed) throw failed;
    return 0;
  } finally {
    await client.close();
  }
}
