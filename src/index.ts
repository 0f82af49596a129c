// Library entry point: everything a program embedding crossmap may use.
export { type CatalogEntry, findBuiltinCrossmap, listBuiltinCrossmaps } from "./crossmap/catalog.js";
export type { FieldMapping } from "./crossmap/compile.js";
export { Crossmap } from "./crossmap/crossmap.js";
export { type LoadOptions, loadCrossmapFile, parseCrossmap } from "./crossmap/load.js";
export { type MappingReport, mappingReport } from "./crossmap/report.js";
export type { CrossmapDocument } from "./crossmap/schema.js";
export { loadStandard, type StandardDefinition } from "./crossmap/standards.js";
export type {
  MappingIssue,
  MapResult,
  Position,
  RecordMapper,
  SourceRecord,
  TargetRecord,
} from "./crossmap/types.js";
export { AppError, formatProblem, type Problem } from "./errors.js";
export {
  type BundleType,
  type ConvertOptions,
  type ConvertResult,
  convertMessage,
  convertStream,
  convertText,
  type Hl7Message,
  Hl7v2Summary,
  type MalformedMessage,
  type MessageConverter,
  messageConverter,
  type SegmentContext,
} from "./pipeline/hl7v2/index.js";
export { type AppOptions, createApp } from "./server/app.js";
export { listen, type RunningServer } from "./server/listen.js";
export { openStores, type Stores } from "./store/env.js";
export type { NewRun } from "./store/runs.js";
export type { ConceptItem, CrossMappingRun, Project, SchemaItem } from "./store/types.js";
export { builtinTransforms } from "./transforms/builtins.js";
export { loadTransformModule, simpleTransform } from "./transforms/custom.js";
export { TransformRegistry } from "./transforms/registry.js";
export {
  degrade,
  fail,
  type TransformContext,
  type TransformDefinition,
  type TransformFactory,
  type TransformFn,
  Unmappable,
} from "./transforms/types.js";
export type { CodeableConcept, Concept, DvCodedText, VocabularyBridge } from "./vocab/bridge.js";
export { type BuildOptions, type BuildReport, buildVocabulary } from "./vocab/build.js";
export {
  type CrosswalkRow,
  LmdbVocabularyBridge,
  openVocabulary,
  type VocabularyStats,
} from "./vocab/lmdb-bridge.js";
export { fhirSystemFor, openehrTerminologyFor, vocabularyForSystem } from "./vocab/systems.js";
