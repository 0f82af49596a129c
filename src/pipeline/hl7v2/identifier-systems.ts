// The site table of identifier systems (`--identifier-systems FILE`): local assigning-authority namespace ids
// of HL7 v2 identifiers (`HCD`, or `MR^GOOD HEALTH HOSPITAL` for one identifier type of that authority) ->
// the FHIR Identifier.system URIs a site uses for them. Read once per run; the reader hands it to every
// record as `$ctx.identifier_systems`, where hl7v2_field and the Bundle envelope look names up.

/** Namespace id, or `<identifier type>^<namespace id>`, -> system URI. */
export type IdentifierSystems = ReadonlyMap<string, string>;
