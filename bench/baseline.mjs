// The yardstick: read NDJSON line by line, JSON.parse and JSON.stringify each line, write to a file.
// Plain Node, no crossmap code: what "JSON speed" means on this machine.
import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { createInterface } from "node:readline";

const [input, output] = process.argv.slice(2);
const out = createWriteStream(output);
const lines = createInterface({ input: createReadStream(input), crlfDelay: Number.POSITIVE_INFINITY });
let buffer = "";
let count = 0;
for await (const line of lines) {
  if (line.length === 0) continue;
  buffer += JSON.stringify(JSON.parse(line)) + "\n";
  count++;
  if (buffer.length >= 1 << 16) {
    if (!out.write(buffer)) await once(out, "drain");
    buffer = "";
  }
}
out.end(buffer);
await once(out, "close");
process.stderr.write(`baseline: ${count} records\n`);
