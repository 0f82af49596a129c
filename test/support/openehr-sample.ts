// Test support: a small COMPOSITION of the crossmap.encounter.v1 template (one body weight), valid as built.

const cp = (terminology: string, code: string) => ({
  _type: "CODE_PHRASE",
  terminology_id: { _type: "TERMINOLOGY_ID", value: terminology },
  code_string: code,
});
export const text = (value: string) => ({ _type: "DV_TEXT", value });
const coded = (value: string, terminology: string, code: string) => ({
  _type: "DV_CODED_TEXT",
  value,
  defining_code: cp(terminology, code),
});
const archetyped = (id: string, template?: string) => ({
  _type: "ARCHETYPED",
  archetype_id: { _type: "ARCHETYPE_ID", value: id },
  ...(template ? { template_id: { _type: "TEMPLATE_ID", value: template } } : {}),
  rm_version: "1.0.4",
});
const time = { _type: "DV_DATE_TIME", value: "2020-01-01T10:00:00Z" };

// biome-ignore lint/suspicious/noExplicitAny: tests poke into the composition at known paths
export type Any = any;

export function composition(): Any {
  return {
    _type: "COMPOSITION",
    archetype_node_id: "openEHR-EHR-COMPOSITION.encounter.v1",
    name: text("Encounter"),
    archetype_details: archetyped("openEHR-EHR-COMPOSITION.encounter.v1", "crossmap.encounter.v1"),
    language: cp("ISO_639-1", "en"),
    territory: cp("ISO_3166-1", "US"),
    category: coded("event", "openehr", "433"),
    composer: { _type: "PARTY_IDENTIFIED", name: "Dr. A" },
    context: {
      _type: "EVENT_CONTEXT",
      start_time: time,
      setting: coded("primary medical care", "openehr", "228"),
    },
    content: [
      {
        _type: "OBSERVATION",
        archetype_node_id: "openEHR-EHR-OBSERVATION.body_weight.v2",
        name: text("Body weight"),
        archetype_details: archetyped("openEHR-EHR-OBSERVATION.body_weight.v2"),
        language: cp("ISO_639-1", "en"),
        encoding: cp("IANA_character-sets", "UTF-8"),
        subject: { _type: "PARTY_SELF" },
        data: {
          _type: "HISTORY",
          archetype_node_id: "at0002",
          name: text("history"),
          origin: time,
          events: [
            {
              _type: "POINT_EVENT",
              archetype_node_id: "at0003",
              name: text("Any event"),
              time,
              data: {
                _type: "ITEM_TREE",
                archetype_node_id: "at0001",
                name: text("Simple"),
                items: [
                  {
                    _type: "ELEMENT",
                    archetype_node_id: "at0004",
                    name: text("Weight"),
                    value: { _type: "DV_QUANTITY", magnitude: 72.5, units: "kg" },
                  },
                ],
              },
              state: {
                _type: "ITEM_TREE",
                archetype_node_id: "at0008",
                name: text("state structure"),
                items: [
                  {
                    _type: "ELEMENT",
                    archetype_node_id: "at0009",
                    name: text("State of dress"),
                    value: coded("Naked", "local", "at0013"),
                  },
                ],
              },
            },
          ],
        },
      },
    ],
  };
}
