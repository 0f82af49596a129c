// Issue 27, finding 9: four clients sending distinct 1 MB crossmaps held a one-record call from another
// client 1.6-4.7 s behind one queue. With turns per client and heavy calls kept off the last worker, the
// small call is answered before the big ones (two suffice to fill both workers of one queue). Real
// worker threads (dist/), real compiles.
import { afterAll, describe, expect, it } from "vitest";
import { MapPool } from "../../src/server/map-pool.js";

const pool = new MapPool({ workers: 2, timeoutMs: 120_000, job: { maxRecords: 10 } });
afterAll(() => pool.close());

const head = "source: omop_cdm_v5.4\ntarget: fhir_r4\nentity_map: {person: Patient}\n";
const body = (crossmap: string | undefined, records: unknown[]) =>
  JSON.stringify({
    source_standard: "omop_cdm_v5.4",
    target_standard: "fhir_r4",
    source_entity: "person",
    records,
    ...(crossmap === undefined ? {} : { crossmap }),
  });

describe("the cross-map pool under big compiles", () => {
  it("answers a one-record call of another client before two 1 MB crossmaps sent before it", async () => {
    let big = `${head}field_map:\n`;
    for (let i = 0; big.length < 990_000; i++) big += `  person.f${i}: {target: Patient.x${i}}\n`;
    const done: string[] = [];
    const heavy = [0, 1].map((c) =>
      pool
        .run({ text: body(`${big}# ${c}\n`, [{ f1: 1 }]), project: "none" }, undefined, `client ${c}`)
        .then((r) => {
          done.push(`big ${c}`);
          return r.kind;
        }),
    );
    // Sent last, from a fifth client.
    const small = pool
      .run(
        { text: body(undefined, [{ person_id: 1, gender_concept_id: 8507 }]), project: "none" },
        undefined,
        "client 5",
      )
      .then((r) => {
        done.push("small");
        return r.kind;
      });
    expect(await small).toBe("done");
    expect(done).toEqual(["small"]);
    expect(await Promise.all(heavy)).toEqual(["done", "done"]);
  }, 180_000);
});
