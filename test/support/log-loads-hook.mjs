// The loader hook of log-loads.mjs (runs on the loader's thread, hence the synchronous write).
import { writeSync } from "node:fs";

export async function load(url, context, next) {
  writeSync(2, `loaded ${url}\n`);
  return next(url, context);
}
