// hl7v2_field renderers for the composite HL7 v2 types that name things rather than say them: EI (entity
// identifier), XCN (a person), XON (an organization), PL (a location), CQ (a quantity) and DR (a date range).
// A person, organization or location becomes a logical FHIR Reference (identifier and display), valid in any
// Reference element without a resource to point at; `part` picks one piece of it instead.

/** Components, each a list of subcomponents, unescaped. */
export type Components = string[][];

export const at = (c: Components, comp: number, sub = 1): string => c[comp - 1]?.[sub - 1]?.trim() ?? "";

/**
 * The object without its empty values (undefined, "", []), or undefined when nothing is left. A copy of
 * the kept keys in their order rather than `delete`: an object that lost a key is in V8's slow dictionary
 * mode, and JSON.stringify of a Bundle made of such objects took ~1.8x as long (measured on the samples).
 */
export const nonEmpty = <T extends Record<string, unknown>>(o: T): T | undefined => {
  let out: Record<string, unknown> | undefined;
  for (const k in o) {
    const x = o[k];
    if (x === undefined || x === "" || (Array.isArray(x) && x.length === 0)) continue;
    out ??= {};
    out[k] = x;
  }
  return out as T | undefined;
};

const list = (...xs: string[]): string[] => xs.filter((x) => x !== "");

const OID = /^[0-2](\.(0|[1-9][0-9]*))+$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** An absolute URI with no whitespace (FHIR `uri`/`url` allow no spaces; a bare name is no URL). */
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/;

/** The one rule for a FHIR `url`/`uri` written from free text: an absolute URI without whitespace. */
export const isAbsoluteUri = (s: string): boolean => ABSOLUTE_URI.test(s);

/**
 * An HD's universal id & type as a URI (an Identifier system, a MessageHeader endpoint), by the IG's HD rules:
 * ISO -> `urn:oid:`, UUID -> `urn:uuid:`, URI/URL as written. Only a value of the kind it claims: an "ISO" id
 * that is no OID (`1.Edu`) or a "URI" with spaces gives none, rather than a system that says something false.
 */
export function hdSystem(universal: string, kind: string): string | undefined {
  if (!universal) return undefined;
  if (kind === "ISO") return OID.test(universal) ? `urn:oid:${universal}` : undefined;
  if (kind === "UUID" || kind === "GUID")
    return UUID.test(universal) ? `urn:uuid:${universal.toLowerCase()}` : undefined;
  if (kind === "URI" || kind === "URL") return isAbsoluteUri(universal) ? universal : undefined;
  return undefined;
}

/** The run's site table (`--identifier-systems`), which the ER7 reader puts on every record's context. */
function siteTable(record: object | undefined): ReadonlyMap<string, string> | undefined {
  const ctx = (record as { $ctx?: { identifier_systems?: unknown } } | undefined)?.$ctx;
  const table = ctx?.identifier_systems;
  return table instanceof Map ? (table as ReadonlyMap<string, string>) : undefined;
}

/**
 * The Identifier.system of an assigning authority (HD namespace ^ universal id ^ type): what the message says
 * (its universal id, by the IG's HD rules), else what the site table says for `<identifier type>^<namespace>`
 * or the namespace alone; else none.
 */
export function authoritySystem(
  record: object | undefined,
  namespace: string,
  universal: string,
  kind: string,
  type = "",
): string | undefined {
  const own = hdSystem(universal, kind);
  if (own !== undefined || namespace === "") return own;
  const table = siteTable(record);
  if (table === undefined) return undefined;
  return (type !== "" ? table.get(`${type}^${namespace}`) : undefined) ?? table.get(namespace);
}

/** EI: entity id ^ namespace ^ universal id ^ universal id type -> Identifier. */
export function entityIdentifier(c: Components, record?: object): Record<string, unknown> | undefined {
  const system = authoritySystem(record, at(c, 2), at(c, 3), at(c, 4));
  const assigner = !system && at(c, 2) ? { display: at(c, 2) } : undefined;
  return nonEmpty({ system, value: at(c, 1), assigner });
}

/** XCN: id ^ family (FN) ^ given ^ middle ^ suffix ^ prefix ^ degree ^ ... ^ assigning authority (HD, 9). */
export function personName(c: Components): Record<string, unknown> | undefined {
  return nonEmpty({
    family: at(c, 2),
    given: list(at(c, 3), ...at(c, 4).split(" ").filter(Boolean)),
    prefix: list(at(c, 6)),
    suffix: list(at(c, 5), at(c, 7), at(c, 21)),
  });
}

/** XCN-1 with its assigning authority (XCN-9) and identifier type (XCN-13). */
export function personIdentifier(c: Components, record?: object): Record<string, unknown> | undefined {
  const system = authoritySystem(record, at(c, 9), at(c, 9, 2), at(c, 9, 3), at(c, 13));
  const assigner = !system && at(c, 9) ? { display: at(c, 9) } : undefined;
  return at(c, 1) ? nonEmpty({ system, value: at(c, 1), assigner }) : undefined;
}

const personDisplay = (c: Components): string =>
  list(at(c, 6), at(c, 3), at(c, 4), at(c, 2), at(c, 5)).join(" ") || at(c, 1);

/** XON: name ^ type ^ id (3) ^ ... ^ assigning authority (HD, 6) ^ ... ^ organization identifier (10). */
export function organizationIdentifier(c: Components, record?: object): Record<string, unknown> | undefined {
  const value = at(c, 10) || at(c, 3);
  const system = authoritySystem(record, at(c, 6), at(c, 6, 2), at(c, 6, 3), at(c, 7));
  return value ? nonEmpty({ system, value }) : undefined;
}

/** PL: point of care ^ room ^ bed ^ facility (HD) ^ status ^ type ^ building ^ floor ^ description. */
export function locationDisplay(c: Components): string {
  const parts = [at(c, 4), at(c, 7), at(c, 8), at(c, 1), at(c, 2), at(c, 3)].filter(Boolean);
  return at(c, 9) || parts.join(", ");
}

export type Part = "reference" | "name" | "identifier" | "display" | "uri";

/**
 * HD: namespace ^ universal id ^ universal id type, as a URI (`urn:oid:`, `urn:uuid:`, the URI). A namespace
 * alone (`GHH LAB, INC.`, `ADTApp`) is a name, not an address: no URI (the crossmap then says why it is absent).
 */
export function hdUri(c: Components): string | undefined {
  return hdSystem(at(c, 2), at(c, 3));
}

export function composite(format: "XCN" | "XON" | "PL" | "EI" | "HD", part: Part = "reference") {
  return (c: Components, record?: object): unknown => {
    switch (format) {
      case "EI":
        return entityIdentifier(c, record);
      case "HD": {
        if (part === "uri") return hdUri(c);
        if (part === "identifier") {
          const system = hdSystem(at(c, 2), at(c, 3));
          return system
            ? { system: "urn:ietf:rfc:3986", value: system }
            : at(c, 1)
              ? { value: at(c, 1) }
              : undefined;
        }
        const name = at(c, 1) || at(c, 2);
        if (part === "display" || part === "name") return name || undefined;
        return name ? { display: name } : undefined;
      }
      case "XCN": {
        if (part === "name") return personName(c);
        if (part === "identifier") return personIdentifier(c, record);
        if (part === "display") return personDisplay(c) || undefined;
        return nonEmpty({ identifier: personIdentifier(c, record), display: personDisplay(c) });
      }
      case "XON": {
        if (part === "name" || part === "display") return at(c, 1) || undefined;
        if (part === "identifier") return organizationIdentifier(c, record);
        return nonEmpty({ identifier: organizationIdentifier(c, record), display: at(c, 1) });
      }
      case "PL": {
        const display = locationDisplay(c);
        if (part === "display" || part === "name") return display || undefined;
        return display ? { display } : undefined;
      }
    }
  };
}
