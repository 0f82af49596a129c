import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { locatedTransaction } from "../../../src/sinks/fhir-server/bundle-text.js";
import { messageBundle } from "../../../src/sinks/fhir-server/bundles.js";

const origin = (file: string, message: number) => `${file}#${message}`;
/** A located line as the HL7 v2 pipeline writes it (src/pipeline/hl7v2/stage.ts, `located`). */
const located = (file: string, message: number, bundle: unknown) =>
  `{"file":${JSON.stringify(file)},"message":${message},"bundle":${JSON.stringify(bundle)}}`;

describe("locatedTransaction, on the HL7 v2 samples' transactions (the built CLI makes them)", () => {
  it("gives what parsing the line and messageBundle give, for every HL7 v2 sample's transaction", () => {
    const root = join(import.meta.dirname, "..", "..", "..");
    const r = spawnSync(
      process.execPath,
      [
        join(root, "bin", "crossmap.js"),
        ...["map", "-q", "--from", "hl7v2", "--to", "fhir", "--bundle", "transaction"],
        join(root, "test", "fixtures", "hl7v2", "samples"),
      ],
      { encoding: "utf8" },
    );
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(22);
    lines.forEach((text, i) => {
      const bundle = JSON.parse(text) as Record<string, unknown>;
      const t = locatedTransaction(located("in/a.hl7", i + 1, bundle), origin);
      const expected = messageBundle(bundle, "transaction", `in/a.hl7#${i + 1}`);
      expect(t.file).toBe("in/a.hl7");
      expect(t.message).toBe(i + 1);
      expect(t.outgoing).toEqual(expected.outgoing);
      expect(t.fullUrls).toEqual(expected.fullUrls);
    });
  });
});
