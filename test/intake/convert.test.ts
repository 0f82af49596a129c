// One kept message -> its Bundle on a conversion thread: the converter is built once for the run.
import { describe, expect, it } from "vitest";
import { createConverter } from "../../src/intake/convert.js";
import { linkPlansMade } from "../../src/pipeline/hl7v2/link.js";
import { resolvePlanSpec } from "../../src/pipeline/load-plan.js";
import { samples } from "./mllp-harness.js";

const texts = new Map(samples().map((s) => [s.name, s.text]));
const sample = (name: string) => texts.get(name) as string;

describe("createConverter", async () => {
  const plan = await resolvePlanSpec({
    from: "hl7v2_2.5.1",
    to: "fhir_r4",
    via: undefined,
    crossmaps: [],
    transforms: undefined,
    vocab: undefined,
  });
  const convert = await createConverter({ plan, bundle: "message" });
  const source = (id: number) => ({ id, sender: "LAB", controlId: String(id), receivedAt: 0 });

  it("plans the links of a message structure and segment sequence once, not once per message", () => {
    const adt = sample("ADT-A01-02.hl7");
    const oru = sample("LAB-ORU-2.hl7");
    const before = linkPlansMade();
    const first = convert(adt, source(1));
    convert(oru, source(2));
    const again = convert(adt, source(3));
    convert(oru, source(4));
    expect(linkPlansMade() - before).toBe(2);
    expect(first.kind).toBe("bundle");
    const text = (o: typeof first) => (o.kind === "bundle" ? new TextDecoder().decode(o.bundle) : "");
    expect(text(again)).toBe(text(first));
  });
});
