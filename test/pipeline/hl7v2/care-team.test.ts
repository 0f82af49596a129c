// The patient's care team (IG ROL[CareTeam], PRT[CareTeam]): one CareTeam per message, subject the
// Patient, a participant per ROL after the PID in a role of table 0443 other than PP and per PRT of an ADT
// in one of the IG's roles, each naming the PractitionerRole its segment makes; a primary care provider's
// ROL stays the Patient's generalPractitioner only, and a visit's or an order's roles stay theirs.
import { describe, expect, it } from "vitest";
import { bundleEntryProblems } from "../../support/fhir.js";
import { namedMessages } from "../../support/hl7v2.js";

const MSH = (type: string, id: string) =>
  `MSH|^~\\&|ADM|GHH|EHR|GHH|202401020304+0100||${type}|${id}|P|2.5.1`;
const PID = "PID|1||PAT7^^^GHH^MR||DOE^JANE||19700101|F";
const PV1 = "PV1|1|I|WARD^1^A||||ATT1^Attend^Alice|||||||||||VN7^^^GHH^VN";
const ROL = (id: string, role: string, person: string, start = "") =>
  `ROL|${id}|AD|${role}|${person}|${start}`;
const PRT = (id: string, role: string, person: string) =>
  `PRT|${id}|AD||${role}|${person}||||||202401020304+0100`;

const messages: Record<string, string> = {
  adt: [
    MSH("ADT^A01^ADT_A01", "M1"),
    PID,
    ROL("R1", "PP^Primary Care Provider^HL70443", "PCP1^Primary^Paula"),
    ROL("R2", "CP^Consulting Provider^HL70443", "CP1^Consult^Carl", "202401010000+0100"),
    ROL("R3", "XX^Local role^L", "LOC1^Local^Lee"),
    PRT("P1", "AD^Admitting Provider^HL70443", "ADM1^Admit^Andy"),
    PV1,
    ROL("R4", "AT^Attending^HL70443", "ATT1^Attend^Alice"),
  ].join("\r"),
  adtAgain: [
    MSH("ADT^A08^ADT_A01", "M2"),
    PID,
    ROL("R2", "CP^Consulting Provider^HL70443", "CP1^Consult^Carl", "202401010000+0100"),
    PV1,
  ].join("\r"),
  pcpOnly: [
    MSH("ADT^A08^ADT_A01", "M3"),
    PID,
    ROL("R1", "PP^Primary Care Provider^HL70443", "PCP1^Primary^Paula"),
    PV1,
  ].join("\r"),
  result: [
    MSH("ORU^R01^ORU_R01", "M4"),
    PID,
    "OBR|1|PL1^GHH|FL1^LAB|2345-7^Glucose^LN|||202401020304+0100",
    PRT("P2", "OP^Ordering Provider^HL70443", "ORD1^Order^Olga"),
    "OBX|1|NM|2345-7^Glucose^LN||95|mg/dL|||||F",
  ].join("\r"),
};

const { bundles, of, roleOf } = namedMessages(messages);

describe("the patient's care team from ROL and PRT", () => {
  it("is one CareTeam about the patient, with the roles after the PID but the primary care provider", () => {
    const [team, ...more] = of("adt", "CareTeam");
    expect(more).toEqual([]);
    expect(team?.resource).toEqual({
      resourceType: "CareTeam",
      id: team?.resource.id,
      subject: { reference: of("adt", "Patient")[0]?.fullUrl },
      participant: [
        {
          member: { reference: roleOf("adt", "CP1") },
          role: [
            {
              coding: [
                {
                  system: "http://terminology.hl7.org/CodeSystem/v2-0443",
                  code: "CP",
                  display: "Consulting Provider",
                },
              ],
            },
          ],
          period: { start: "2024-01-01T00:00:00+01:00" },
        },
        {
          member: { reference: roleOf("adt", "ADM1") },
          role: [
            {
              coding: [
                {
                  system: "http://terminology.hl7.org/CodeSystem/v2-0443",
                  code: "AD",
                  display: "Admitting Provider",
                },
              ],
            },
          ],
          period: { start: "2024-01-02T03:04:00+01:00" },
        },
      ],
    });
    // The PP role is the Patient's general practitioner; the visit's attending is the Encounter's.
    expect(JSON.stringify(of("adt", "Patient")[0]?.resource.generalPractitioner)).toContain("PCP1");
    expect(JSON.stringify(of("adt", "Encounter")[0]?.resource.participant)).toContain(
      String(roleOf("adt", "ATT1")),
    );
  });

  it("has the same id in every message about the patient, and none without such a role", () => {
    expect(of("adtAgain", "CareTeam")[0]?.resource.id).toBe(of("adt", "CareTeam")[0]?.resource.id);
    expect(of("pcpOnly", "CareTeam")).toEqual([]);
    // An order's participations are not the patient's care team.
    expect(of("result", "CareTeam")).toEqual([]);
  });

  it("is valid FHIR R4 and every reference resolves in its Bundle", () => {
    for (const [name, es] of bundles) expect(bundleEntryProblems(es), name).toEqual([]);
  });
});
