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

/** An HD's universal id & type as an Identifier system: `urn:oid:` for ISO, the URI for URI/URL, `urn:uuid:`. */
export function hdSystem(universal: string, kind: string): string | undefined {
  if (universal && kind === "ISO") return `urn:oid:${universal}`;
  if (universal && /^(URI|URL)$/.test(kind)) return universal;
  if (universal && kind === "UUID") return `urn:uuid:${universal}`;
  return undefined;
}

/** EI: entity id ^ namespace ^ universal id ^ universal id type -> Identifier. */
export function entityIdentifier(c: Components): Record<string, unknown> | undefined {
  const system = hdSystem(at(c, 3), at(c, 4));
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

export function personIdentifier(c: Components): Record<string, unknown> | undefined {
  const system = hdSystem(at(c, 9, 2), at(c, 9, 3));
  const assigner = !system && at(c, 9) ? { display: at(c, 9) } : undefined;
  return at(c, 1) ? nonEmpty({ system, value: at(c, 1), assigner }) : undefined;
}

const personDisplay = (c: Components): string =>
  list(at(c, 6), at(c, 3), at(c, 4), at(c, 2), at(c, 5)).join(" ") || at(c, 1);

/** XON: name ^ type ^ id (3) ^ ... ^ assigning authority (HD, 6) ^ ... ^ organization identifier (10). */
export function organizationIdentifier(c: Components): Record<string, unknown> | undefined {
  const value = at(c, 10) || at(c, 3);
  const system = hdSystem(at(c, 6, 2), at(c, 6, 3));
  return value ? nonEmpty({ system, value }) : undefined;
}

/** PL: point of care ^ room ^ bed ^ facility (HD) ^ status ^ type ^ building ^ floor ^ description. */
export function locationDisplay(c: Components): string {
  const parts = [at(c, 4), at(c, 7), at(c, 8), at(c, 1), at(c, 2), at(c, 3)].filter(Boolean);
  return at(c, 9) || parts.join(", ");
}

export type Part = "reference" | "name" | "identifier" | "display" | "uri";

/** HD: namespace ^ universal id ^ universal id type: as a URI (`urn:oid:`, the URI, `urn:uuid:`, else the namespace). */
export function hdUri(c: Components): string | undefined {
  return hdSystem(at(c, 2), at(c, 3)) ?? (at(c, 1) || undefined);
}

export function composite(format: "XCN" | "XON" | "PL" | "EI" | "HD", part: Part = "reference") {
  return (c: Components): unknown => {
    switch (format) {
      case "EI":
        return entityIdentifier(c);
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
        if (part === "identifier") return personIdentifier(c);
        if (part === "display") return personDisplay(c) || undefined;
        return nonEmpty({ identifier: personIdentifier(c), display: personDisplay(c) });
      }
      case "XON": {
        if (part === "name" || part === "display") return at(c, 1) || undefined;
        if (part === "identifier") return organizationIdentifier(c);
        return nonEmpty({ identifier: organizationIdentifier(c), display: at(c, 1) });
      }
      case "PL": {
        const display = locationDisplay(c);
        if (part === "display" || part === "name") return display || undefined;
        return display ? { display } : undefined;
      }
    }
  };
}
