// Every resource the built-in HL7 v2 crossmap writes passes the FHIR R4 validators (Medplum's structural
// validator and the official R4 JSON schema) on messages written to break it: TS/DTM values of every
// precision with and without an offset in every time field (instants among them), sending and receiving
// applications and facilities with spaces or without a URI, no MSH-5 at all, and ED/RP values of every
// encoding, valid and not; with and without --assume-timezone, as collection, message and transaction Bundles.
import { describe, expect, it } from "vitest";
import { fhirProblems } from "../../support/fhir.js";
import { mapMessage } from "../../support/hl7v2.js";

const PRECISIONS = [
  "2023",
  "202308",
  "20230814",
  "2023081402",
  "202308140224",
  "20230814022400",
  "20230814022400.1234",
];
const OFFSETS = ["", "+0200", "-0430"];
const TIMES = PRECISIONS.flatMap((p) => OFFSETS.map((o) => p + o));

/** MSH-3 / MSH-4 / MSH-5 / MSH-6 as senders write them: names with spaces, universal ids, nothing. */
const PARTIES = [
  ["GHH LAB, INC.", "GOOD HEALTH HOSPITAL", "Test EHR Application", "Test Facility"],
  ["GHH LAB, INC.", "GOOD HEALTH HOSPITAL", "", ""],
  ["APP^1.2.3.4^ISO", "FAC^1.2.3.5^ISO", "", "RCV FAC^1.2.3.6^ISO"],
  ["", "", "", ""],
  ["App^not an oid^ISO", "Fac^https://fac.example.org/id^URI", "Rcv^urn:uuid:0^UUID", "x y^a b^URI"],
] as const;

const msh = (t: string, type: string, parties: readonly string[] = PARTIES[0]) =>
  `MSH|^~\\&|${parties[0]}|${parties[1]}|${parties[2]}|${parties[3]}|${t}||${type}|C${t}|P|2.5.1`;

/** One message of each kind, every time field set to `t`. */
function messages(t: string): string[][] {
  const pid = `PID|1||PAT1^^^HOSP&2.16.840.1.113883.19&ISO^MR||DOE^JANE||${t}|F||1^White|||||||||||||||||||${t}|Y`;
  const pv1 = `PV1|1|I|W^1^1^HOSP||||1234^SMITH^JOHN|||||||||||||V1^^^HOSP^VN|||||||||||||||||||||||||${t}|${t}`;
  return [
    [
      msh(t, "ADT^A01^ADT_A01"),
      `EVN|A01|${t}|||OP1^CLERK^ANNE|${t}`,
      pid,
      pv1,
      `DG1|1||I10.9^Hypertension^I10||${t}|F|||||||||||||${t}`,
      `AL1|1|DA|70618^Penicillin^RXNORM|SV|hives|${t}`,
      `NK1|1|DOE^JOHN|SPO|||||${t}|${t}`,
      `IN1|1|PLAN1|INS1^^^HOSP|Acme Insurance||||||||${t}|${t}`,
    ],
    [
      msh(t, "ORU^R01^ORU_R01"),
      pid,
      pv1,
      `ORC|RE|PL1^LAB|FL1^LAB||CM||||${t}`,
      `OBR|1|PL1^LAB|FL1^LAB|1234^Panel^LN|||${t}|${t}||||||${t}|||||||${t}|||F`,
      `OBX|1|NM|2345-7^Glucose^LN||95|mg/dL^^UCUM|70-99|N|||F|||${t}`,
      `OBX|2|TS|8302-2^When^LN||${t}||||||F|||${t}`,
      `OBX|3|DT|8302-3^Day^LN||${t.slice(0, 8)}||||||F`,
      "OBX|4|ED|11502-2^Report^LN||^AP^PDF^Base64^JVBERi0xLjQK||||||F",
      "OBX|5|ED|11502-2^Report^LN||^AP^PDF^Base64^not base64!||||||F",
      "OBX|6|ED|11502-2^Report^LN||^TEXT^plain^A^Plain text||||||F",
      "OBX|7|ED|11502-2^Report^LN||^AP^octet-stream^Hex^48656C6C6F||||||F",
      "OBX|8|ED|11502-2^Report^LN||^AP^octet-stream^Hex^4G||||||F",
      "OBX|9|ED|11502-2^Report^LN||^AP^PDF^^QUJD||||||F",
      "OBX|10|RP|11502-2^Report^LN||http://example.org/r.pdf^APP^AP^PDF||||||F",
      "OBX|11|RP|11502-2^Report^LN||my report.pdf^APP^AP^PDF||||||F",
      `SPM|1|S1&LAB||BLD^Blood^HL70487|||||||||||||${t}|${t}`,
    ],
    [
      msh(t, "MDM^T02^MDM_T02"),
      `EVN|T02|${t}`,
      pid,
      pv1,
      `TXA|1|CN^Consult note^HL70270|TX|${t}||${t}|||||DOC1^LAB||||||AU`,
      "OBX|1|TX|||First line||||||F",
      "OBX|2|TX|||Second line||||||F",
    ],
    [
      msh(t, "SIU^S12^SIU_S12"),
      `SCH|1|2|||||REASON^Reason^L|ROUTINE^Routine^HL70276|15|min|^^15^${t}^${t}|||||||||||||||Booked`,
      pid,
      pv1,
    ],
    [
      msh(t, "VXU^V04^VXU_V04"),
      pid,
      `ORC|RE|PL2|FL2|||||||${t}`,
      `RXA|0|1|${t}|${t}|08^HepB^CVX|0.5|mL^^UCUM||00^new record^NIP001||||||L1|${t.slice(0, 8)}|MSD^Merck^MVX|||CP`,
    ],
  ];
}

/** Every resource validated on its own (a whole Bundle costs the schema's oneOf over every resource type). */
const problemsOf = async (segments: string[], options: Parameters<typeof mapMessage>[1]) => {
  const m = await mapMessage(segments, options);
  const out: string[] = [];
  for (const r of m.resources) for (const p of fhirProblems(r)) out.push(`${r.resourceType}: ${p}`);
  return { m, problems: out };
};

describe("HL7 v2 output on messages written to break it", () => {
  it("is valid FHIR R4 for TS values of every precision, with and without an offset, in every time field", async () => {
    let resources = 0;
    for (const t of TIMES) {
      for (const segments of messages(t)) {
        for (const options of [{}, { assumeTimezone: "+01:00" }]) {
          const { m, problems } = await problemsOf(segments, options);
          expect(problems, `${t} ${segments[0]} ${JSON.stringify(options)}`).toEqual([]);
          resources += m.resources.length;
        }
      }
    }
    expect(resources).toBeGreaterThan(1500);
  });

  it("never writes a date into an instant: without an offset it is left out, with --assume-timezone it is kept", async () => {
    const plain = await mapMessage(messages("20230814022400")[2] as string[]);
    expect(plain.of("DocumentReference")[0]?.date).toBeUndefined();
    // Provenance.recorded is required: the Provenance is left out, said so.
    expect(plain.of("Provenance")).toEqual([]);
    expect(plain.issues.filter((i) => i.target === "Provenance.recorded").map((i) => i.code)).toEqual([
      "invalid_date",
      "missing_required",
    ]);
    const zoned = await mapMessage(messages("20230814022400")[2] as string[], { assumeTimezone: "+02:00" });
    expect(zoned.of("DocumentReference")[0]?.date).toBe("2023-08-14T02:24:00+02:00");
    expect(zoned.of("Provenance")[0]?.recorded).toBe("2023-08-14T02:24:00+02:00");
    const dated = await mapMessage(messages("20230814")[2] as string[], { assumeTimezone: "+02:00" });
    expect(dated.of("DocumentReference")[0]?.date).toBeUndefined();
    expect(dated.of("DocumentReference")[0]?.context).toEqual({
      encounter: [{ reference: expect.stringMatching(/^urn:uuid:/) }],
      period: { start: "2023-08-14" },
    });
  });

  it("is valid FHIR R4 whatever MSH-3/4/5/6 hold, and a MessageHeader always has its endpoints", async () => {
    for (const parties of PARTIES) {
      const segments = [
        msh("20230814022400+0200", "ADT^A01^ADT_A01", parties),
        "EVN|A01",
        "PID|1||P1^^^H^MR||DOE^JANE",
      ];
      for (const bundle of ["collection", "message", "transaction"] as const) {
        const { m, problems } = await problemsOf(segments, { bundle });
        expect(problems, `${parties.join("|")} ${bundle}`).toEqual([]);
        const header = m.of("MessageHeader")[0] as {
          source: Record<string, unknown>;
          destination?: Record<string, unknown>[];
        };
        expect("endpoint" in header.source || "_endpoint" in header.source).toBe(true);
        for (const d of header.destination ?? []) expect("endpoint" in d || "_endpoint" in d).toBe(true);
      }
    }
  });

  it("writes the IG's endpoints: a URI from a universal id, else unknown; no destination without MSH-5/6", async () => {
    const header = async (parties: readonly string[]) =>
      (await mapMessage([msh("20230814022400+0200", "ADT^A01", parties), "PID|1||P1^^^H^MR"])).of(
        "MessageHeader",
      )[0];
    const unknown = {
      extension: [
        { url: "http://hl7.org/fhir/StructureDefinition/data-absent-reason", valueCode: "unknown" },
      ],
    };
    expect(await header(PARTIES[0])).toMatchObject({
      source: { name: "GHH LAB, INC.", _endpoint: unknown },
      destination: [
        { name: "Test EHR Application", _endpoint: unknown, receiver: { display: "Test Facility" } },
      ],
    });
    expect((await header(PARTIES[1]))?.destination).toBeUndefined();
    expect(await header(PARTIES[2])).toMatchObject({
      source: { name: "APP", endpoint: "urn:oid:1.2.3.4" },
      destination: [{ _endpoint: unknown, receiver: { display: "RCV FAC" } }],
    });
    expect(await header(PARTIES[4])).toMatchObject({
      source: { name: "App", _endpoint: unknown },
      destination: [{ name: "Rcv", _endpoint: unknown }],
    });
  });
});
