// Participations and order details the v2-to-FHIR IG maps that earlier versions of the crossmap left out:
// a vaccination's ordering and administering providers (VXU ORDER.PRT, RXA-10, ORC-12 -> performer with its
// function), where an observation was made (an OBX's PRT-9/14 -> Location, event-location), a person in the
// patient's care who is no primary care provider (PATIENT.PRT -> RelatedPerson), an ORU written with v2.8's
// COMMON_ORDER (ORC, PRT, OBR: the report and the order keep the ORC's numbers, PLAC/FILL), the order's
// requisition (ORC-4), the insurance's case manager (IN3-21 -> CareTeam), a document's edit (TXA-8 ->
// Provenance) and the comments on its lines, or on a text report's (NTE -> a second attachment).
import { describe, expect, it } from "vitest";
import { bundleEntryProblems } from "../../support/fhir.js";
import { namedMessages } from "../../support/hl7v2.js";

const MSH = (type: string, id: string) =>
  `MSH|^~\\&|APP|GHH|EHR|GHH|202401020304+0100||${type}|${id}|P|2.5.1`;
const PID = "PID|1||PAT7^^^GHH^MR||DOE^JANE||19700101|F";
const V0443 = "http://terminology.hl7.org/CodeSystem/v2-0443";
const V0203 = "http://terminology.hl7.org/CodeSystem/v2-0203";
const EVENT_LOCATION = "http://hl7.org/fhir/StructureDefinition/event-location";

const messages: Record<string, string> = {
  vaccination: [
    MSH("VXU^V04^VXU_V04", "V1"),
    PID,
    "ORC|RE|PL9^GHH|FL9^IIS||||||202401020304+0100|||ORD1^Order^Olga",
    "PRT|P1|AD||OP^Ordering Provider^HL70443|ORD1^Order^Olga",
    "PRT|P2|AD||AP^Administering Provider^HL70443|ADM1^Admin^Ada",
    "PRT|P3|AD||RP^Referring Provider^HL70443|REF1^Refer^Rick",
    "RXA|0|1|20240102||08^HepB^CVX|0.5|mL^mL^UCUM||00^New record^NIP001|NUR1^Nurse^Nina",
    "OBX|1|NM|8867-4^Heart rate^LN||72|/min^^UCUM|||||F|||20240102",
    "PRT|P4|AD||EQUIP^Equipment^HL70912|||||CLINIC^R2^^GGH|||||1 Main St^^Town^CA^90001",
  ].join("\r"),
  result: [
    MSH("ORU^R01^ORU_R01", "R1"),
    PID,
    "PRT|P5|AD||FHCP^Family Health Care Professional^HL70443|FAM1^Carer^Cathy||||||202401010000+0100|||3 Care St^^Town^CA^90001|^PRN^PH^^^555^1112222",
    "PRT|P6|AD||PP^Primary Care Provider^HL70443|PCP1^Primary^Paula",
    "ORC|RE|PL1^GHH|FL1^LAB|GRP1^GHH|CM",
    "PRT|P7|AD||OP^Ordering Provider^HL70443|ORD1^Order^Olga",
    "OBR|1|||2345-7^Glucose^LN|||202401020304+0100||||||||||||||||F",
    "OBX|1|NM|2345-7^Glucose^LN||95|mg/dL|||||F",
  ].join("\r"),
  admission: [
    MSH("ADT^A01^ADT_A01", "A1"),
    "EVN|A01|202401020304+0100",
    PID,
    "PV1|1|I|WARD^1^A",
    "IN1|1|PLAN1^Plan|INS1^^^GHH|Insurer",
    `IN3|1|CERT1${"|".repeat(19)}Carl Case`,
  ].join("\r"),
  document: [
    MSH("MDM^T02^MDM_T02", "D1"),
    "EVN|T02|202401020304+0100",
    PID,
    "PV1|1|I|WARD^1^A",
    "TXA|1|CN^Consultation note^HL70270|TX|202401020304+0100||202401020304+0100||202401030405+0100|AUTH1^Author^Ann|||DOC7^GHH||||||AU",
    "OBX|1|TX|||First line||||||F",
    "NTE|1||Dictated, not read",
    "OBX|2|TX|||Second line||||||F",
  ].join("\r"),
  deviceSecond: [
    MSH("ORU^R01^ORU_R01", "R8"),
    PID,
    "OBR|1|PL3^GHH|FL3^LAB|2345-7^Glucose^LN|||202401020304+0100||||||||||||||||F",
    "OBX|1|NM|2345-7^Glucose^LN||95|mg/dL|||||F",
    "PRT|P8|AD||RO^Responsible Observer^HL70912|TEC1^Tech^Ted",
    "PRT|P9|AD||EQUIP^Equipment^HL70912||||||GLU-7^ANALYZER^1.2.3^ISO",
  ].join("\r"),
  report: [
    MSH("ORU^R01^ORU_R01", "R9"),
    PID,
    "OBR|1|PL2^GHH|FL2^LAB|18748-4^Imaging report^LN|||202401020304+0100||||||||||||||||F",
    "OBX|1|TX|||Impression: normal.||||||F",
    "NTE|1||Preliminary read by resident",
    "OBX|2|TX|||No acute findings.||||||F",
  ].join("\r"),
};

const { bundles, of, roleOf } = namedMessages(messages);

const fn = (code: string, display: string) => ({ coding: [{ system: V0443, code, display }] });
const idType = (code: string) => ({ coding: [{ system: V0203, code }] });

describe("a vaccination's participations", () => {
  it("names the ordering and administering providers as performers with their function", () => {
    const [imm] = of("vaccination", "Immunization");
    expect(imm?.resource.performer).toEqual([
      {
        actor: { identifier: { value: "NUR1" }, display: "Nina Nurse" },
        function: fn("AP", "Administering Provider"),
      },
      {
        actor: { identifier: { value: "ORD1" }, display: "Olga Order" },
        function: fn("OP", "Ordering Provider"),
      },
      { actor: { reference: roleOf("vaccination", "ORD1") }, function: fn("OP", "Ordering Provider") },
      { actor: { reference: roleOf("vaccination", "ADM1") }, function: fn("AP", "Administering Provider") },
    ]);
    // A referring provider's PRT stays a PractitionerRole only.
    expect(roleOf("vaccination", "REF1")).toBeDefined();
  });

  it("makes the place an observation was made a Location, named by the Observation", () => {
    const [place, ...more] = of("vaccination", "Location");
    expect(more).toEqual([]);
    expect(place?.resource).toEqual({
      resourceType: "Location",
      id: place?.resource.id,
      name: "GGH, CLINIC, R2",
      mode: "instance",
      address: { line: ["1 Main St"], city: "Town", state: "CA", postalCode: "90001" },
    });
    expect(of("vaccination", "Observation")[0]?.resource.extension).toEqual([
      { url: EVENT_LOCATION, valueReference: { reference: place?.fullUrl } },
    ]);
  });
});

describe("an observation's device", () => {
  it("is the Device of a PRT of the OBX, whichever PRT it is", () => {
    const [device, ...more] = of("deviceSecond", "Device");
    expect(more).toEqual([]);
    expect(device?.resource.identifier).toEqual([{ value: "GLU-7", system: "urn:oid:1.2.3" }]);
    expect(of("deviceSecond", "Observation")[0]?.resource.device).toEqual({ reference: device?.fullUrl });
  });
});

describe("a result written with v2.8's groups", () => {
  it("makes a person in the patient's care other than the primary care provider a RelatedPerson", () => {
    const [person, ...more] = of("result", "RelatedPerson");
    expect(more).toEqual([]);
    expect(person?.resource).toEqual({
      resourceType: "RelatedPerson",
      id: person?.resource.id,
      patient: { reference: of("result", "Patient")[0]?.fullUrl },
      relationship: [fn("FHCP", "Family Health Care Professional")],
      name: [{ family: "Carer", given: ["Cathy"] }],
      telecom: [{ system: "phone", value: "555 1112222", use: "home" }],
      address: [{ line: ["3 Care St"], city: "Town", state: "CA", postalCode: "90001" }],
      period: { start: "2024-01-01T00:00:00+01:00" },
    });
    expect(JSON.stringify(of("result", "Patient")[0]?.resource.generalPractitioner)).toContain("PCP1");
  });

  it("keeps the ORC's numbers on the order and the report across the order's PRT", () => {
    const [order] = of("result", "ServiceRequest");
    const [report] = of("result", "DiagnosticReport");
    expect(order?.resource.identifier).toEqual([
      { value: "PL1", assigner: { display: "GHH" }, type: idType("PLAC") },
      { value: "FL1", assigner: { display: "LAB" }, type: idType("FILL") },
    ]);
    expect(order?.resource.requisition).toEqual({
      value: "GRP1",
      assigner: { display: "GHH" },
      type: idType("PGN"),
    });
    expect(report?.resource.identifier).toEqual([
      { value: "PL1", assigner: { display: "GHH" }, type: idType("PLAC") },
      { value: "FL1", assigner: { display: "LAB" }, type: idType("FILL") },
    ]);
    expect(report?.resource.basedOn).toMatchObject([{ reference: order?.fullUrl }]);
  });
});

describe("an insurance's case manager", () => {
  it("is a participant of the patient's care team", () => {
    const [team] = of("admission", "CareTeam");
    expect(team?.resource).toEqual({
      resourceType: "CareTeam",
      id: team?.resource.id,
      subject: { reference: of("admission", "Patient")[0]?.fullUrl },
      participant: [
        {
          member: { display: "Carl Case" },
          role: [
            { coding: [{ system: "http://snomed.info/sct", code: "768832004", display: "Case manager" }] },
          ],
        },
      ],
    });
  });
});

describe("a document's edit and comments", () => {
  it("records the edit (TXA-8) as a Provenance of the document, its originator the author", () => {
    const [doc] = of("document", "DocumentReference");
    const edit = of("document", "Provenance").find((e) =>
      JSON.stringify(e.resource).includes(String(doc?.fullUrl)),
    );
    expect(edit?.resource).toEqual({
      resourceType: "Provenance",
      id: edit?.resource.id,
      target: [{ reference: doc?.fullUrl }],
      recorded: "2024-01-03T04:05:00+01:00",
      agent: [
        {
          who: { identifier: { value: "AUTH1" }, display: "Ann Author" },
          type: {
            coding: [
              {
                system: "http://terminology.hl7.org/CodeSystem/provenance-participant-type",
                code: "author",
                display: "Author",
              },
            ],
          },
        },
      ],
    });
  });

  it("keeps the comments on its lines as a second attachment", () => {
    const content = of("document", "DocumentReference")[0]?.resource.content as {
      attachment: { contentType?: string; data?: string };
    }[];
    expect(content.map((c) => Buffer.from(c.attachment.data ?? "", "base64").toString())).toEqual([
      "First line\nSecond line",
      "Dictated, not read",
    ]);
    expect(content[1]?.attachment.contentType).toBe("text/plain");
  });

  it("keeps the comments on a text report's lines as its second presented form", () => {
    const forms = of("report", "DiagnosticReport")[0]?.resource.presentedForm as {
      contentType?: string;
      data?: string;
    }[];
    expect(forms.map((f) => [f.contentType, Buffer.from(f.data ?? "", "base64").toString()])).toEqual([
      ["text/plain", "Impression: normal.\nNo acute findings."],
      ["text/plain", "Preliminary read by resident"],
    ]);
  });
});

it("writes valid FHIR R4 whose references all resolve in their Bundles", () => {
  for (const [name, es] of bundles) expect(bundleEntryProblems(es), name).toEqual([]);
});
