// The fifteen built-in transforms of the spec, registered once under their spec names.
import { bool, float, int, passthrough, str } from "./casts.js";
import { codeableConcept, fhirDate, fhirPeriod, fhirReference } from "./fhir.js";
import { format } from "./format.js";
import { hl7v2Field } from "./hl7v2.js";
import { dvCodedText, dvQuantity } from "./openehr.js";
import { TransformRegistry } from "./registry.js";
import { valueMap } from "./value-map.js";
import { vocabularyLookup } from "./vocabulary.js";

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
    .register("vocabulary_lookup", vocabularyLookup);
  return builtins;
}
