// Per-patient order with two conversion threads (`crossmap listen --workers 2`, a real process): a busy
// patient's messages go to a thread together, several at once (src/intake/order.ts), and still come out in
// the order they arrived, as do every other patient's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killAll, until } from "../scale/nats-harness.js";
import {
  adtA08,
  frame,
  type Listener,
  linesOf,
  metricsOf,
  RawClient,
  startListenerWithOutput,
} from "./mllp-harness.js";

let out: string;
let listener: Listener;

beforeAll(async () => {
  ({ listener, out } = await startListenerWithOutput("order", ["--workers", "2"]));
});
afterAll(async () => {
  await killAll();
});

describe("crossmap listen with two conversion threads", () => {
  it("writes each patient's messages in arrival order, a busy patient's too", async () => {
    const COUNT = 400;
    // Three patients in five: P1; one in five each: P2, P3 (control ids P1-0, P1-1, ...).
    const seq = new Map<string, number>();
    const ids = Array.from({ length: COUNT }, (_, i) => {
      const patient = ["P1", "P1", "P2", "P1", "P3"][i % 5] as string;
      const n = seq.get(patient) ?? 0;
      seq.set(patient, n + 1);
      return `${patient}-${n}`;
    });
    const client = await RawClient.connect(listener.port);
    client.write(Buffer.concat(ids.map((id) => frame(adtA08(id, id.split("-")[0])))));
    for (const id of ids) expect(await client.next()).toContain(`\rMSA|AA|${id}\r`);
    client.close();
    await until(
      async () => ((await metricsOf(listener)).converted_total as number) === COUNT,
      60_000,
      "everything converted",
    );
    const written = linesOf(out, "bundles").map(
      (l) => (JSON.parse(l) as { identifier: { value: string } }).identifier.value,
    );
    const ofPatient = (list: string[], p: string) => list.filter((id) => id.startsWith(`${p}-`));
    for (const p of ["P1", "P2", "P3"]) expect(ofPatient(written, p)).toEqual(ofPatient(ids, p));
  });
});
