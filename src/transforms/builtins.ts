// The fifteen built-in transforms of the spec, registered once under their spec names, plus generic helpers
// the built-in crossmaps need (constant, integer_id, quantity, dv_text,
// dv_date_time, dv_coded_text_from_coding, dv_proportion, openehr_element, date_part, select,
// datetime_text, derived_id).
import { bool, float, int, passthrough, str } from "./casts.js";
import { constant } from "./constant.js";
import { datePart } from "./date-part.js";
import { datetimeText } from "./datetime-text.js";
import { derivedId } from "./derived-id.js";
import { codeableConcept, fhirDate, fhirPeriod, fhirReference } from "./fhir.js";
import { format } from "./format.js";
import { hl7v2Field } from "./hl7v2.js";
import { dvCodedText, dvQuantity } from "./openehr.js";
import { dvProportion, openehrElement } from "./openehr-element.js";
import { dvCodedTextFromCoding, dvDateTime, dvText } from "./openehr-values.js";
import { quantity } from "./quantity.js";
import { TransformRegistry } from "./registry.js";
import { select } from "./select.js";
import { integerId } from "./stable-id.js";
import { valueMap } from "./value-map.js";
import { vocabularyLookup } from "./vocabulary.js";
import { vocabularyReverseLookup } from "./vocabulary-reverse.js";

let builtins: TransformRegistry | undefined;

/** The shared registry of built-ins. Use `.extend()` to add custom transforms without touching it. */
export function builtinTransforms(): TransformRegistry {
  builtins ??= new TransformRegistry()
    .register("passthrough", passthrough)
    .register("str", str)
    .register("int", int)
    .register("float", float)
    .register("bool", bool)
    .register("value_map", valueMap)
    .register("format", format)
    .register("codeable_concept", codeableConcept)
    .register("fhir_reference", fhirReference)
    .register("fhir_date", fhirDate)
    .register("fhir_period", fhirPeriod)
    .register("hl7v2_field", hl7v2Field)
    .register("dv_quantity", dvQuantity)
    .register("dv_coded_text", dvCodedText)
    .register("vocabulary_lookup", vocabularyLookup)
    .register("constant", constant)
    .register("integer_id", integerId)
    .register("quantity", quantity)
    .register("dv_text", dvText)
    .register("dv_date_time", dvDateTime)
    .register("dv_coded_text_from_coding", dvCodedTextFromCoding)
    .register("dv_proportion", dvProportion)
    .register("openehr_element", openehrElement)
    .register("date_part", datePart)
    .register("select", select)
    .register("datetime_text", datetimeText)
    .register("vocabulary_reverse_lookup", vocabularyReverseLookup)
    .register("derived_id", derivedId);
  return builtins;
}
