// holdInHand against a real nats-server: a batch a worker holds is not redelivered however long it waits,
// while one held without it comes back after each ack wait (what mapped batches twice on a busy machine).
import { AckPolicy, type JsMsg } from "@nats-io/jetstream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { holdInHand, progressEvery } from "../../src/scale/in-hand.js";
import { closeNats, connectNats, type Nats } from "../../src/scale/jetstream.js";
import { describeWithNats, type NatsServer, startNatsServer } from "./nats-harness.js";

const describeNats = describeWithNats(import.meta.url);

const ACK_WAIT_MS = 2000;

describeNats("holdInHand", () => {
  let server: NatsServer;
  let nats: Nats;

  beforeAll(async () => {
    server = await startNatsServer();
    nats = await connectNats(server.url, "test");
    await nats.jsm.streams.add({ name: "HAND", subjects: ["hand"] });
    await nats.jsm.consumers.add("HAND", {
      durable_name: "hand",
      ack_policy: AckPolicy.Explicit,
      ack_wait: ACK_WAIT_MS * 1e6,
    });
  }, 60_000);

  afterAll(async () => {
    if (nats) await closeNats(nats);
    await server?.stop();
  });

  it("keeps a batch in hand from being redelivered; one not held comes back after each ack wait", async () => {
    await nats.js.publish("hand", "held");
    await nats.js.publish("hand", "let go");
    const consumer = await nats.js.consumers.get("HAND", "hand");
    const take = async (): Promise<JsMsg> => (await consumer.next({ expires: 30_000 }))!;
    const held = await take();
    expect([held.string(), held.info.deliveryCount]).toEqual(["held", 1]);
    const hand = holdInHand(held, progressEvery(ACK_WAIT_MS));
    const deliveries: string[] = [];
    // Two ack waits or more pass while the test takes what the server hands out: only "let go", each time.
    let m: JsMsg | undefined;
    for (let i = 0; i < 3; i++) {
      m = await take();
      deliveries.push(`${m.string()} ${m.info.deliveryCount}`);
    }
    expect(deliveries).toEqual(["let go 1", "let go 2", "let go 3"]);
    await m!.ackAck();
    hand.release();
    // Once released (a worker that stopped signalling), the held batch comes back like any other.
    const back = await take();
    expect([back.string(), back.info.deliveryCount]).toEqual(["held", 2]);
  }, 60_000);
});
