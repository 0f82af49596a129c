// A Bundle's identifier for the message it was made of (IG MSH[Bundle]: MSH-10 -> Bundle.identifier.value,
// the system "to be determined by the implementer"): the control id is unique per sender, so the system
// names the sender (MSH-3 sending application, MSH-4 sending facility).
import { at, type Components, hdSystem } from "../../transforms/hl7v2-composites.js";
import { er7Split } from "../../transforms/hl7v2-value.js";
import type { IdentifierSystems } from "./identifier-systems.js";
import type { SegmentRecord } from "./segment.js";

const components = (v: unknown): Components =>
  typeof v === "string" ? [[v]] : ((er7Split(v)?.[0] as Components | undefined) ?? []);

/**
 * The system of the sender's control ids, the first of: the site table's URI for the sending application's
 * namespace, the application's universal id (urn:oid:, urn:uuid:, a URI), the same two for the sending
 * facility, else a URN of the two namespaces, `urn:hl7v2-sender:<application>:<facility>` (each
 * percent-encoded), so two senders never share a system. Undefined when MSH-3 and MSH-4 are both empty.
 */
export function senderSystem(msh: SegmentRecord, table?: IdentifierSystems): string | undefined {
  const app = components(msh["3"]);
  const facility = components(msh["4"]);
  for (const hd of [app, facility]) {
    const own = table?.get(at(hd, 1));
    if (own !== undefined) return own;
    const universal = hdSystem(at(hd, 2), at(hd, 3));
    if (universal !== undefined) return universal;
  }
  const names = [at(app, 1) || at(app, 2), at(facility, 1) || at(facility, 2)];
  if (names.every((n) => n === "")) return undefined;
  return `urn:hl7v2-sender:${names.map(encodeURIComponent).join(":")}`;
}

/** `{system, value}` of MSH-10, or undefined for a message without a control id. */
export function messageIdentifier(
  msh: SegmentRecord,
  table?: IdentifierSystems,
): { system?: string; value: string } | undefined {
  const value = at(components(msh["10"]), 1);
  if (value === "") return undefined;
  const system = senderSystem(msh, table);
  return system === undefined ? { value } : { system, value };
}
