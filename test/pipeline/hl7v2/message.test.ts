import { describe, expect, it } from "vitest";
import { FIELD_AT } from "../../../src/crossmap/paths.js";
import { type Hl7Message, type MalformedMessage, parseMessage } from "../../../src/pipeline/hl7v2/message.js";
import { fieldNames } from "../../../src/pipeline/hl7v2/names.js";
import { splitMessages } from "../../../src/pipeline/hl7v2/split.js";
import { messageStructures } from "../../../src/pipeline/hl7v2/structure.js";
import { er7Split } from "../../../src/transforms/hl7v2-value.js";

const parseAll = (text: string, mapped?: (t: string) => boolean) =>
  [...splitMessages(text)].map((raw) =>
    parseMessage(raw, { file: "in.hl7", names: fieldNames(), ...(mapped ? { mapped } : {}) }),
  );
const one = (text: string) => parseAll(text)[0] as Hl7Message;
/** A record as JSON shows it: fields and aliases, without the context. */
const fields = (r: object) => {
  const { $ctx: _, ...rest } = JSON.parse(JSON.stringify(r)) as Record<string, unknown>;
  return rest;
};

const MSH = "MSH|^~\\&|APP|FAC^1.2.3^ISO|||20240101120000+0100||ORU^R01^ORU_R01|MSG1|P|2.5.1";

describe("segment records", () => {
  const m = one(
    `${MSH}\rPID|1||123^^^HOSP^MR~456^^^SSA^SS||O\\S\\BRIEN&VAN^PAT||19610615|M|||1 MAIN ST^^TOWN||""|\rOBX|1|NM|1-8^X^LN||7.5|mg|`,
  );
  it("keys fields by position and v2.5.1 name, plain for single values", () => {
    const pid = m.segments[1] as Record<string, unknown>;
    expect(pid["1"]).toBe("1");
    expect(pid.set_id).toBe("1");
    expect(pid["8"]).toBe("M");
    expect(pid.administrative_sex).toBe("M");
    expect(pid["7"]).toBe("19610615");
  });
  it("splits components and subcomponents and unescapes each leaf; a component without subcomponents is a string", () => {
    expect(fields(m.segments[1] as object)).toEqual({
      "1": "1",
      set_id: "1",
      "3": { "1": "123", "4": "HOSP", "5": "MR" },
      "3$2": { "1": "456", "4": "SSA", "5": "SS" },
      patient_identifier_list: { "1": "123", "4": "HOSP", "5": "MR" },
      "5": { "1": { "1": "O^BRIEN", "2": "VAN" }, "2": "PAT" },
      patient_name: { "1": { "1": "O^BRIEN", "2": "VAN" }, "2": "PAT" },
      "7": "19610615",
      date_time_of_birth: "19610615",
      "8": "M",
      administrative_sex: "M",
      "11": { "1": "1 MAIN ST", "3": "TOWN" },
      patient_address: { "1": "1 MAIN ST", "3": "TOWN" },
    });
  });
  it("give every numbered field through FIELD_AT as through its key, none past the last field", () => {
    const pid = m.segments[1] as Record<string | symbol, unknown>;
    const at = pid[FIELD_AT] as (n: number) => unknown;
    expect(typeof at).toBe("function");
    for (let n = 1; n <= 120; n++) expect(at.call(pid, n)).toEqual(pid[String(n)]);
    expect(at.call(pid, 5)).toBe(pid["5"]);
    const msh = m.segments[0] as Record<string | symbol, unknown>;
    expect((msh[FIELD_AT] as (n: number) => unknown).call(msh, 1)).toBe("|");
    expect((msh[FIELD_AT] as (n: number) => unknown).call(msh, 9)).toEqual(msh["9"]);
  });
  it("keeps the full split (every repetition) for hl7v2_field", () => {
    const pid = m.segments[1] as Record<string, unknown>;
    expect(er7Split(pid["3"])).toEqual([
      [["123"], [""], [""], ["HOSP"], ["MR"]],
      [["456"], [""], [""], ["SSA"], ["SS"]],
    ]);
    expect(er7Split(pid["5"])).toEqual([[["O^BRIEN", "VAN"], ["PAT"]]]);
  });
  it("makes composite fields nodes even with one value, so OBX.6.1 works on a bare unit", () => {
    const obx = m.segments[2] as Record<string, unknown>;
    expect(fields(obx)).toMatchObject({ "2": "NM", "5": "7.5", "6": { "1": "mg" } });
  });
  it("numbers MSH fields from MSH-1, the field separator", () => {
    expect(fields(m.segments[0] as object)).toMatchObject({
      "1": "|",
      "2": "^~\\&",
      "3": { "1": "APP" },
      "4": { "1": "FAC", "2": "1.2.3", "3": "ISO" },
      "9": { "1": "ORU", "2": "R01", "3": "ORU_R01" },
      message_type: { "1": "ORU", "2": "R01", "3": "ORU_R01" },
      "10": "MSG1",
    });
  });
  it("reads a message with its own delimiters and the five-character MSH-2", () => {
    const c = one("MSH*:!/%#*APP\rPID*1**A:B!C:D**X/S/Y%Z/P/");
    expect(c.delimiters).toEqual({
      field: "*",
      component: ":",
      repetition: "!",
      escape: "/",
      subcomponent: "%",
      truncation: "#",
    });
    expect(fields(c.segments[1] as object)).toMatchObject({
      "3": { "1": "A", "2": "B" },
      "3$2": { "1": "C", "2": "D" },
      "5": { "1": { "1": "X:Y", "2": "Z#" } },
    });
  });
  it('reads HL7\'s explicit null "" as absent', () => {
    const pid = m.segments[1] as Record<string, unknown>;
    expect(pid["13"]).toBeUndefined();
    expect(pid["12"]).toBeUndefined();
    expect(Object.keys(fields(pid))).not.toContain("13");
  });
});

describe("message context", () => {
  const text = `${MSH}\rPID|1||1\rPV1|1|I\rORC|RE\rOBR|1\rOBX|1\rOBX|2\rORC|RE\rRXA|0|1|20240101\rOBX|1\r`;
  const m = one(text);
  const ctx = (i: number) => m.segments[i]?.$ctx;
  it("gives every segment a deterministic UUID, the same whatever the line ends", () => {
    const again = one(text.replaceAll("\r", "\r\n"));
    expect(m.segments.map((s) => s.$ctx.id)).toEqual(again.segments.map((s) => s.$ctx.id));
    expect(m.id).toBe(again.id);
    expect(new Set(m.segments.map((s) => s.$ctx.id)).size).toBe(10);
    expect(ctx(1)?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{6}000002$/);
    expect(ctx(1)?.fullUrl).toBe(`urn:uuid:${ctx(1)?.id}`);
    expect(ctx(1)?.position).toBe("in.hl7#1/2 PID");
  });
  it("points each segment at the message's PID and PV1 and at its order group", () => {
    expect(ctx(1)?.ref).toEqual({});
    expect(ctx(2)?.ref).toEqual({ PID: ctx(1)?.fullUrl });
    expect(ctx(5)?.ref).toEqual({
      PID: ctx(1)?.fullUrl,
      PV1: ctx(2)?.fullUrl,
      ORC: ctx(3)?.fullUrl,
      OBR: ctx(4)?.fullUrl,
      parent: ctx(4)?.fullUrl,
    });
    expect(ctx(9)?.ref).toEqual({
      PID: ctx(1)?.fullUrl,
      PV1: ctx(2)?.fullUrl,
      ORC: ctx(7)?.fullUrl,
      RXA: ctx(8)?.fullUrl,
      parent: ctx(8)?.fullUrl,
    });
    expect(ctx(4)?.children).toEqual({
      OBX: [{ reference: ctx(5)?.fullUrl }, { reference: ctx(6)?.fullUrl }],
    });
  });
  it("refers only to segment types that become resources", () => {
    const only = parseAll(text, (t) => t === "OBX")[0] as Hl7Message;
    expect(only.segments[4]?.$ctx.ref).toEqual({});
    expect(only.segments[3]?.$ctx.children).toEqual({});
  });
  it("exposes the MSH record to every segment, without making records circular in JSON", () => {
    const c = ctx(5) as unknown as { msh: Record<string, { [k: string]: string }> };
    expect(c.msh["9"]?.["2"]).toBe("R01");
    expect(() => JSON.stringify(m.segments)).not.toThrow();
  });
});

describe("message context from the message structure", () => {
  const structured = (text: string, mapped?: (t: string) => boolean) =>
    [...splitMessages(text)].map((raw) =>
      parseMessage(raw, {
        file: "in.hl7",
        names: fieldNames(),
        structures: messageStructures(),
        ...(mapped ? { mapped } : {}),
      }),
    )[0] as Hl7Message;
  const summary = (m: Hl7Message) =>
    m.segments.map((s, i) => {
      const c = s.$ctx;
      const parent = m.segments.findIndex((x) => x.$ctx.fullUrl === c.ref.parent);
      return `${i} ${c.type} ${c.path ?? "-"} <- ${parent >= 0 ? `${parent} ${c.parent_type}` : (c.parent_type ?? "-")}`;
    });

  it("places an ORU's segments in their groups: OBX under its OBR, NTE under what it follows, SPM's OBX under SPM", () => {
    const m = structured(
      "MSH|^~\\&|A|B|||20240101||ORU^R01^ORU_R01|1|P|2.5.1\rPID|1\rPV1|1|O\rORC|RE\rOBR|1\rNTE|1\rOBX|1\rNTE|1\rOBX|2\rOBR|2\rOBX|1\rSPM|1\rOBX|1",
    );
    expect(summary(m)).toEqual([
      "0 MSH - <- -",
      "1 PID PATIENT_RESULT.PATIENT <- -",
      "2 PV1 PATIENT_RESULT.PATIENT.VISIT <- 1 PID",
      "3 ORC PATIENT_RESULT.ORDER_OBSERVATION.COMMON_ORDER <- -",
      "4 OBR PATIENT_RESULT.ORDER_OBSERVATION <- -",
      "5 NTE PATIENT_RESULT.ORDER_OBSERVATION <- 4 OBR",
      "6 OBX PATIENT_RESULT.ORDER_OBSERVATION.OBSERVATION <- 4 OBR",
      "7 NTE PATIENT_RESULT.ORDER_OBSERVATION.OBSERVATION <- 6 OBX",
      "8 OBX PATIENT_RESULT.ORDER_OBSERVATION.OBSERVATION <- 4 OBR",
      "9 OBR PATIENT_RESULT.ORDER_OBSERVATION <- -",
      "10 OBX PATIENT_RESULT.ORDER_OBSERVATION.OBSERVATION <- 9 OBR",
      "11 SPM PATIENT_RESULT.ORDER_OBSERVATION.SPECIMEN <- 9 OBR",
      "12 OBX PATIENT_RESULT.ORDER_OBSERVATION.SPECIMEN.SPECIMEN_OBSERVATION <- 11 SPM",
    ]);
    const ctx = (i: number) => m.segments[i]?.$ctx;
    expect(ctx(10)).toMatchObject({ structure: "ORU_R01", group: "OBSERVATION" });
    // An OBX knows its own order's OBR (not the first OBR of the message) and the patient's PID and PV1.
    expect(ctx(10)?.ref).toMatchObject({
      OBR: ctx(9)?.fullUrl,
      PID: ctx(1)?.fullUrl,
      PV1: ctx(2)?.fullUrl,
    });
    // Not into other repetitions of a repeating group: the SPECIMEN group's SPM, the other order's ORC.
    expect(ctx(10)?.ref.SPM).toBeUndefined();
    expect(ctx(10)?.ref.ORC).toBeUndefined();
    expect(ctx(12)?.ref.SPM).toBe(ctx(11)?.fullUrl);
    expect(ctx(6)?.ref.ORC).toBe(ctx(3)?.fullUrl);
    expect(ctx(4)?.children.OBX).toEqual([{ reference: ctx(6)?.fullUrl }, { reference: ctx(8)?.fullUrl }]);
    expect(ctx(6)?.children.NTE).toEqual([{ reference: ctx(7)?.fullUrl }]);
  });

  it("keeps an ORU's ORC with its OBR across the order's PRT (v2.8's COMMON_ORDER group)", () => {
    // Senders of v2.8+ put the ordering provider's PRT between ORC and OBR (the IG's ORU_R01 map does). In
    // v2.7.1's structure that PRT ended the ORDER_OBSERVATION, so the OBR opened another one without its ORC.
    const m = structured(
      "MSH|^~\\&|A|B|||20240101||ORU^R01^ORU_R01|1|P|2.5.1\rPID|1\rORC|RE|P1|F1\rPRT|1|AD||OP\rOBR|1\rPRT|2|AD||TN\rOBX|1",
    );
    expect(summary(m)).toEqual([
      "0 MSH - <- -",
      "1 PID PATIENT_RESULT.PATIENT <- -",
      "2 ORC PATIENT_RESULT.ORDER_OBSERVATION.COMMON_ORDER <- -",
      "3 PRT PATIENT_RESULT.ORDER_OBSERVATION.COMMON_ORDER <- 2 ORC",
      "4 OBR PATIENT_RESULT.ORDER_OBSERVATION <- -",
      "5 PRT PATIENT_RESULT.ORDER_OBSERVATION <- 4 OBR",
      "6 OBX PATIENT_RESULT.ORDER_OBSERVATION.OBSERVATION <- 4 OBR",
    ]);
    const ctx = (i: number) => m.segments[i]?.$ctx;
    expect(ctx(4)?.ref.ORC).toBe(ctx(2)?.fullUrl);
    expect(ctx(6)?.ref.ORC).toBe(ctx(2)?.fullUrl);
  });

  it("gives a flat ADT's ROL the PID or PV1 it follows, and a parent its first child's record", () => {
    const m = structured(
      "MSH|^~\\&|A|B|||20240101||ADT^A04^ADT_A01|1|P|2.8\rEVN|A04\rPID|1\rPD1|||FAC^^123\rARV|1\rROL|1\rNK1|1\rPV1|1|O\rPV2|||^flu\rROL|2\rPR1|1\rROL|3\rIN1|1\rIN2|1\rZPI|1",
    );
    expect(summary(m).slice(2)).toEqual([
      "2 PID - <- 1 EVN",
      "3 PD1 - <- 2 PID",
      "4 ARV - <- 2 PID",
      "5 ROL - <- 2 PID",
      "6 NK1 - <- 2 PID",
      "7 PV1 - <- 2 PID",
      "8 PV2 - <- 7 PV1",
      "9 ROL - <- 7 PV1",
      "10 PR1 PROCEDURE <- 7 PV1",
      "11 ROL PROCEDURE <- 10 PR1",
      "12 IN1 INSURANCE <- 7 PV1",
      "13 IN2 INSURANCE <- 12 IN1",
      "14 ZPI INSURANCE <- 12 IN1",
    ]);
    const pid = m.segments[2]?.$ctx as unknown as { child: Record<string, Record<string, unknown>> };
    expect(pid.child.PD1?.["3"]).toMatchObject({ "3": "123" });
    expect(JSON.stringify(m.segments[2])).not.toContain(`"child":`);
  });

  it("shows a segment the nearest of each type before it, else the first after, in a group of thousands", () => {
    // A flat ADT: one group. Types appear PID, NTE, OBX; the segments in between are filler PIDs.
    const fill = Array.from({ length: 3_000 }, (_, i) => `PID|${i + 10}`).join("\r");
    const m = structured(
      `MSH|^~\\&|A|B|||20240101||ADT^A08^ADT_A01|1|P|2.5.1\rEVN|A08\rPID|1\r${fill}\rNTE|1\rOBX|1\rNTE|2\rOBX|2`,
    );
    const n = m.segments.length;
    const at = (i: number) => m.segments[i]?.$ctx as (typeof m.segments)[number]["$ctx"];
    const idx = (url: string | undefined) => m.segments.findIndex((x) => x.$ctx.fullUrl === url);
    const seen = (i: number) =>
      Object.fromEntries(
        Object.entries(at(i).ref)
          .filter(([t]) => t !== "parent")
          .map(([t, u]) => [t, idx(u)]),
      );
    // The first PID: EVN before it, the next PID (its own type), the first NTE and OBX after it; in the order
    // the types come (before first, then after).
    expect(seen(2)).toEqual({ EVN: 1, PID: 3, NTE: n - 4, OBX: n - 3 });
    expect(Object.keys(at(2).seg)).toEqual(["EVN", "PID", "NTE", "OBX"]);
    // A filler PID in the middle: the PID right before it.
    expect(seen(1_500).PID).toBe(1_499);
    // The last OBX: the NTE and OBX right before it, the last PID.
    expect(seen(n - 1)).toEqual({ EVN: 1, PID: n - 5, NTE: n - 2, OBX: n - 3 });
    expect(m.segments.slice(2, n - 4).every((s) => s.$ctx.type === "PID")).toBe(true);
  });

  it("links a VXU's OBX to the RXA of its order, not to one of another order", () => {
    const m = structured(
      "MSH|^~\\&|A|B|||20240101||VXU^V04^VXU_V04|1|P|2.5.1\rPID|1\rOBX|1\rORC|RE\rRXA|0|1|20240101\rRXR|C28161\rOBX|1\rORC|RE\rRXA|0|1|20240102\rOBX|1",
    );
    expect(summary(m).slice(2)).toEqual([
      "2 OBX - <- 1 PID",
      "3 ORC ORDER <- 1 PID",
      "4 RXA ORDER <- 3 ORC",
      "5 RXR ORDER <- 4 RXA",
      "6 OBX ORDER.OBSERVATION <- 4 RXA",
      "7 ORC ORDER <- 1 PID",
      "8 RXA ORDER <- 7 ORC",
      "9 OBX ORDER.OBSERVATION <- 8 RXA",
    ]);
    expect(m.segments[2]?.$ctx.ref.RXA).toBeUndefined();
    expect(m.segments[9]?.$ctx.ref.RXA).toBe(m.segments[8]?.$ctx.fullUrl);
  });

  it("refers only to mapped types, and falls back to positional linking for an unknown structure", () => {
    const m = structured(
      "MSH|^~\\&|A|B|||20240101||ORU^R01^ORU_R01|1|P|2.5.1\rPID|1\rOBR|1\rOBX|1",
      (t) => t === "OBX",
    );
    expect(m.segments[3]?.$ctx.ref).toEqual({});
    expect(m.segments[3]?.$ctx.parent_type).toBe("OBR");
    const unknown = structured("MSH|^~\\&|A|B|||20240101||ZZZ^Z01|1|P|2.5.1\rPID|1\rOBR|1\rOBX|1");
    expect(unknown.segments[3]?.$ctx).toMatchObject({ ref: { parent: unknown.segments[2]?.$ctx.fullUrl } });
    expect(unknown.segments[3]?.$ctx.structure).toBeUndefined();
  });
});

describe("malformed messages", () => {
  it("are reported with file, message index, segment and line, and do not stop the others", () => {
    const out = parseAll(`${MSH}\rPID|1\r${MSH}\rPID|1\rbad segment\rOBX|1\rMSH|^~|X\r${MSH}\rP1D|1`);
    expect(out.map((m) => ("segments" in m ? "ok" : m))).toEqual([
      "ok",
      {
        file: "in.hl7",
        index: 2,
        segment: 3,
        segmentType: "bad",
        line: 5,
        message: '"bad segment" is not a segment: expected a 3-character id and "|"',
      },
      {
        file: "in.hl7",
        index: 3,
        segment: 1,
        segmentType: "MSH",
        line: 7,
        message: 'encoding characters (MSH-2) "^~" must be 4 or 5 characters, e.g. ^~\\&',
      },
      "ok",
    ] satisfies (string | MalformedMessage)[]);
  });
  it("reports segments before any MSH", () => {
    expect(parseAll(`PID|1\r${MSH}`)[0]).toEqual({
      file: "in.hl7",
      index: 1,
      segment: 1,
      segmentType: "PID",
      line: 1,
      message: 'line 1 is no HL7 v2 message: no MSH segment starts it (the first begins "PID|1"); not read',
    });
  });
});
