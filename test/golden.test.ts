// Golden tests: each folder in test/golden/ holds crossmap.yaml, an input and expected.ndjson.
// - input.ndjson (lines of {"entity", "record"}): one expected line per input line, {"value", "issues"} for a
//   one-to-one entity and {"outputs", "issues"} for one that may produce several records (outputs held for
//   gathering are left out there); when the crossmap gathers, one last line {"gathered", "orphans"} holds
//   what gathering over all input lines wrote, in order.
// - input.hl7 (ER7 messages): one expected line per message, {"bundle", "issues"} (the HL7 v2 pipeline).
// UPDATE_GOLDEN=1 rewrites expected files; review the diff before committing.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type GatherItem, gather, isHeld } from "../src/crossmap/gather.js";
import { loadCrossmapFile } from "../src/crossmap/load.js";
import { convertText } from "../src/pipeline/hl7v2/index.js";
import { parseJson, stringifyJson } from "../src/pipeline/json.js";

const root = new URL("./golden/", import.meta.url).pathname;
const cases = readdirSync(root).filter(
  (d) => existsSync(join(root, d, "input.ndjson")) || existsSync(join(root, d, "input.hl7")),
);

async function run(dir: string): Promise<string> {
  const cm = await loadCrossmapFile(join(dir, "crossmap.yaml"));
  if (existsSync(join(dir, "input.hl7"))) {
    const text = readFileSync(join(dir, "input.hl7"), "utf8");
    return [...convertText(text, cm, { file: "input.hl7" })]
      .map((r) => stringifyJson(r.ok ? { bundle: r.bundle, issues: r.issues } : { malformed: r.malformed }))
      .join("\n");
  }
  const lines = readFileSync(join(dir, "input.ndjson"), "utf8").split("\n").filter(Boolean);
  const held: GatherItem<number>[] = [];
  const out = lines.map((line, i) => {
    const { entity, record } = parseJson(line) as { entity: string; record: Record<string, unknown> };
    const mapper = cm.mapper(entity);
    if (!mapper.multi || !mapper.mapAll) return stringifyJson(mapper.map(record, i + 1));
    const r = mapper.mapAll(record, i + 1);
    const outputs = [];
    for (const o of r.outputs) {
      if (isHeld(cm.gatherPlan, o.output, o.into)) {
        const item: GatherItem<number> = { output: o.output, entity: o.entity, value: o.value, place: i + 1 };
        if (o.key !== undefined) item.key = o.key;
        if (o.into !== undefined) item.into = o.into;
        held.push(item);
      } else outputs.push(o);
    }
    return stringifyJson({ outputs, issues: r.issues });
  });
  if (cm.gathers) {
    const g = gather(cm.gatherPlan, held);
    out.push(
      stringifyJson({
        gathered: g.top.map((t) => ({ entity: t.entity, value: t.value })),
        orphans: g.orphans.map((o) => ({ line: o.place, output: o.output, key: o.into?.key })),
      }),
    );
  }
  return out.join("\n");
}

describe("golden mappings", () => {
  it("has cases", () => expect(cases.length).toBeGreaterThan(0));
  for (const name of cases) {
    it(name, async () => {
      const dir = join(root, name);
      const actual = await run(dir);
      const expectedPath = join(dir, "expected.ndjson");
      if (process.env.UPDATE_GOLDEN) writeFileSync(expectedPath, `${actual}\n`);
      expect(actual).toBe(readFileSync(expectedPath, "utf8").trimEnd());
    });
  }
});
