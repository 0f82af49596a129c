// Identifier systems: what an HL7 v2 assigning authority (CX-4, EI-2..4, XCN-9, XON-6) says, by the IG's HD
// rules, else the site table (`--identifier-systems`); and each Bundle's identifier, MSH-10 in the sender's
// system.
import { describe, expect, it } from "vitest";
import { AppError } from "../../../src/errors.js";
import { parseIdentifierSystems } from "../../../src/pipeline/hl7v2/identifier-systems-file.js";
import { mapMessage } from "../../support/hl7v2.js";

const table = parseIdentifierSystems(
  [
    "HCD: urn:oid:2.16.840.1.113883.3.72.5.9.1",
    '"GOOD HEALTH HOSPITAL": http://goodhealth.example.org/id',
    '"MR^GOOD HEALTH HOSPITAL": http://goodhealth.example.org/mrn',
    "LAB: http://lab.example.org/orders",
    '"GHH LAB": http://ghh.example.org/messages',
  ].join("\n"),
  "sites.yaml",
);
const msh = (app = "GHH LAB", facility = "GOOD HEALTH HOSPITAL", id = "MSG1") =>
  `MSH|^~\\&|${app}|${facility}|||20230814022400+0200||ORU^R01|${id}|P|2.5.1`;
const PID =
  "PID|1||P1^^^GOOD HEALTH HOSPITAL^MR~P2^^^GOOD HEALTH HOSPITAL^PI~P3^^^HCD&2.16.840.1.113883.19&ISO^MR~P4^^^NOWHERE^MR";

const systems = (ids: unknown) =>
  (ids as { system?: string; value: string }[]).map((i) => [i.value, i.system]);

describe("identifier systems", () => {
  it("come from the message's universal id first, then the site table for type^namespace, then for the namespace", async () => {
    const m = await mapMessage(
      [
        msh(),
        PID,
        "ORC|RE|PL1^LAB|FL1^LAB^2.16.840.1.113883.20^ISO||CM|||||||1234^SMITH^JOHN^^^^^^HCD^^^^NPI",
        "OBR|1|PL1^LAB|FL1^LAB^2.16.840.1.113883.20^ISO|1^Panel^LN",
      ],
      { identifierSystems: table },
    );
    const patient = m.of("Patient")[0];
    expect(systems(patient?.identifier)).toEqual([
      ["P1", "http://goodhealth.example.org/mrn"],
      ["P2", "http://goodhealth.example.org/id"],
      ["P3", "urn:oid:2.16.840.1.113883.19"],
      ["P4", undefined],
    ]);
    // The namespace still names the assigner, as the IG's CX[Identifier] does.
    expect(((patient?.identifier ?? []) as { assigner?: unknown }[])[0]?.assigner).toEqual({
      display: "GOOD HEALTH HOSPITAL",
    });
    expect(systems(m.of("ServiceRequest")[0]?.identifier)).toEqual([
      ["PL1", "http://lab.example.org/orders"],
      ["FL1", "urn:oid:2.16.840.1.113883.20"],
    ]);
    expect(systems(m.of("Practitioner")[0]?.identifier)).toEqual([
      ["1234", "urn:oid:2.16.840.1.113883.3.72.5.9.1"],
    ]);
  });

  it("without a site table, a namespace alone gives no system, only the assigner", async () => {
    const m = await mapMessage([msh(), PID]);
    expect(systems(m.of("Patient")[0]?.identifier)).toEqual([
      ["P1", undefined],
      ["P2", undefined],
      ["P3", "urn:oid:2.16.840.1.113883.19"],
      ["P4", undefined],
    ]);
  });

  it("refuse a site table that is not a map of names to URIs, naming the file and the key", () => {
    const bad = (text: string) => {
      try {
        parseIdentifierSystems(text, "s.yaml");
      } catch (err) {
        expect(err).toBeInstanceOf(AppError);
        return (err as AppError).message;
      }
      return "accepted";
    };
    expect(bad("- HCD")).toBe(
      '--identifier-systems s.yaml: expected a map of namespace ids to system URIs, e.g. "HCD: urn:oid:2.16.840.1.113883.19"',
    );
    expect(bad("HCD: not a uri")).toBe(
      '--identifier-systems s.yaml: "HCD" must map to an absolute URI without spaces (urn:oid:..., http://...), got "not a uri"',
    );
    expect(bad('"A^B^C": urn:x:y')).toBe(
      '--identifier-systems s.yaml: "A^B^C" is not a namespace id or <identifier type>^<namespace id>',
    );
    expect(bad("a: [")).toMatch(/^--identifier-systems s\.yaml: not YAML: /);
  });
});

describe("Bundle.identifier", () => {
  const id = async (mshLine: string, options = {}) =>
    (await mapMessage([mshLine, "PID|1||P1"], options)).bundle.identifier;

  it("is MSH-10 in the sender's system: the site table's, else the application's or facility's universal id", async () => {
    expect(await id(msh(), { identifierSystems: table })).toEqual({
      system: "http://ghh.example.org/messages",
      value: "MSG1",
    });
    expect(await id(msh("APP^1.2.3^ISO", "FAC^1.2.4^ISO"))).toEqual({
      system: "urn:oid:1.2.3",
      value: "MSG1",
    });
    expect(await id(msh("APP", "FAC^1.2.4^ISO"))).toEqual({ system: "urn:oid:1.2.4", value: "MSG1" });
    expect(await id(msh("APP", "GOOD HEALTH HOSPITAL"), { identifierSystems: table })).toEqual({
      system: "http://goodhealth.example.org/id",
      value: "MSG1",
    });
  });

  it("is in a URN of the two namespaces when nothing names a URI, and has no system without a sender", async () => {
    expect(await id(msh("GHH LAB, INC.", "GOOD HEALTH HOSPITAL"))).toEqual({
      system: "urn:hl7v2-sender:GHH%20LAB%2C%20INC.:GOOD%20HEALTH%20HOSPITAL",
      value: "MSG1",
    });
    expect(await id(msh("", "FAC"))).toEqual({ system: "urn:hl7v2-sender::FAC", value: "MSG1" });
    expect(await id(msh("", ""))).toEqual({ value: "MSG1" });
    expect(await id(msh("A", "B", ""))).toBeUndefined();
  });

  it("comes first after the Bundle's id and before its type", async () => {
    const b = (await mapMessage([msh(), "PID|1||P1"], { bundle: "transaction" })).bundle;
    expect(Object.keys(b)).toEqual(["resourceType", "id", "identifier", "type", "entry"]);
  });
});
