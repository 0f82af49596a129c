// Reads a file holding one FHIR Bundle (pretty-printed or not) and hands its entries on in batches.
// The Bundle is parsed whole: a single Bundle is bounded by what its producer could build in memory.
import { readFile } from "node:fs/promises";
import { jsonSyntaxMessage, parseJson } from "./json.js";
import { bundleEntries } from "./stage.js";
import type { ParsedRecord, RecordsBatch } from "./types.js";

export async function* bundleFileBatches(
  file: string,
  entity: string | undefined,
  batchRecords: number,
  onBytes?: (bytes: number) => void,
): AsyncGenerator<RecordsBatch> {
  const text = await readFile(file, "utf8");
  onBytes?.(Buffer.byteLength(text));
  let bundle: unknown;
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    bundle = parseJson(json);
  } catch (err) {
    const problem = `malformed JSON: ${jsonSyntaxMessage(err, json)}`;
    yield {
      kind: "records",
      file,
      entity,
      records: [{ record: {}, problem, problemCode: "malformed_json" }],
    };
    return;
  }
  const entries = bundleEntries(bundle);
  let records: ParsedRecord[] = [];
  if (typeof entries === "string") {
    yield { kind: "records", file, entity, records: [{ record: {}, problem: entries }] };
    return;
  }
  for (let i = 0; i < entries.length; i++) {
    const resource = (entries[i] as { resource?: unknown } | null)?.resource;
    if (typeof resource === "object" && resource !== null && !Array.isArray(resource)) {
      records.push({ record: resource as Record<string, unknown>, entry: i });
    } else {
      records.push({ record: {}, entry: i, problem: "entry has no resource object" });
    }
    if (records.length >= batchRecords) {
      yield { kind: "records", file, entity, records };
      records = [];
    }
  }
  if (records.length > 0) yield { kind: "records", file, entity, records };
}
