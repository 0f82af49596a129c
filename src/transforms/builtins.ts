// The fifteen built-in transforms of the spec, registered once under their spec names, plus generic helpers
// the built-in crossmaps need (constant, integer_id, quantity, dv_text,
// dv_date_time, dv_coded_text_from_coding, dv_proportion, openehr_element, date_part, select,
// datetime_text, derived_id), the combinators first_of and chain, and the OMOP <-> FHIR carriers (omop_codeable_concept,
// omop_concept_of, omop_quantity, fhir_extension, extension_value, date_from_parts, base64).
import { base64 } from "./base64.js";
import { bool, float, int, passthrough, str } from "./casts.js";
import { chain, firstOf } from "./combinators.js";
import { components } from "./components.js";
import { constant } from "./constant.js";
import { dateFromParts } from "./date-from-parts.js";
import { datePart } from "./date-part.js";
import { datetimeText } from "./datetime-text.js";
import { derivedId } from "./derived-id.js";
import { codeableConcept, fhirDate, fhirPeriod, fhirReference } from "./fhir.js";
import { extensionValueReader, fhirExtension } from "./fhir-extension.js";
import { format } from "./format.js";
import { hl7v2Field } from "./hl7v2.js";
import { omopCodeableConcept } from "./omop-codeable-concept.js";
import { omopConceptOf } from "./omop-concept-of.js";
import { omopQuantity } from "./omop-quantity.js";
import { dvCodedText, dvQuantity } from "./openehr.js";
import { dvProportion, openehrElement } from "./openehr-element.js";
import { dvCodedTextFromCoding, dvDateTime, dvText } from "./openehr-values.js";
import { quantity } from "./quantity.js";
import { TransformRegistry } from "./registry.js";
import { report } from "./report.js";
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
    .register("derived_id", derivedId)
    .register("first_of", firstOf)
    .register("chain", chain)
    .register("components", components)
    .register("fhir_extension", fhirExtension)
    .register("extension_value", extensionValueReader)
    .register("omop_codeable_concept", omopCodeableConcept)
    .register("omop_concept_of", omopConceptOf)
    .register("omop_quantity", omopQuantity)
    .register("date_from_parts", dateFromParts)
    .register("base64", base64)
    .register("report", report);
  return builtins;
}
