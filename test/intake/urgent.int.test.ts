// A sender that asks only for the application ACK (MSH-15 NE, MSH-16 AL) waits for the conversion, so the
// listener converts its message before the backlog of messages already acknowledged (src/intake/order.ts):
// here 600 original-mode messages, each answered AA once kept, are still being converted when it arrives.
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
  steady,
} from "./mllp-harness.js";

let out: string;
let listener: Listener;

beforeAll(async () => {
  ({ listener, out } = await startListenerWithOutput("urgent", ["--workers", "1"]));
});
afterAll(async () => {
  await killAll();
});

describe("crossmap listen: a sender waiting for its application ACK", () => {
  it("gets its message converted before the acknowledged backlog", async () => {
    const BACKLOG = 600;
    const bulk = await RawClient.connect(listener.port);
    bulk.write(Buffer.concat(Array.from({ length: BACKLOG }, (_, i) => frame(adtA08(`B${i}`, `P${i}`)))));
    for (let i = 0; i < BACKLOG; i++) expect(steady((await bulk.next()) ?? "")).toContain(`\rMSA|AA|B${i}\r`);
    const before = (await metricsOf(listener)).converted_total as number;

    const waiting = await RawClient.connect(listener.port);
    waiting.write(frame(adtA08("U1", "URGENT", "|||NE|AL")));
    // No commit ACK (MSH-15 NE): the first answer is the application ACK, once the Bundle is committed.
    expect(steady((await waiting.next()) ?? "")).toBe(
      "MSH|^~\\&|CROSSMAP|HOSP|LAB|HOSP|<time>||ACK^A08^ACK|<id>|P|2.5.1\rMSA|AA|U1\r",
    );
    const atAnswer = (await metricsOf(listener)).converted_total as number;
    bulk.close();
    waiting.close();
    await until(
      async () => ((await metricsOf(listener)).converted_total as number) === BACKLOG + 1,
      60_000,
      "everything converted",
    );
    // The backlog was still there when it came (else this test shows nothing), and it was not last.
    const lines = linesOf(out, "bundles");
    const at = lines.findIndex((l) => l.includes('"value":"U1"'));
    const figures = `${before} converted when it came, written ${at + 1}th of ${BACKLOG + 1}, ${atAnswer} converted at its answer`;
    expect(
      { backlogLeft: before < BACKLOG, convertedFirst: at < BACKLOG, answeredEarly: atAnswer < BACKLOG + 1 },
      figures,
    ).toEqual({ backlogLeft: true, convertedFirst: true, answeredEarly: true });
  });
});
