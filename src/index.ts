// Library entry point: everything a program embedding crossmap may use.
export { AppError, formatProblem, type Problem } from "./errors.js";
export { type AppOptions, createApp } from "./server/app.js";
export { listen, type RunningServer } from "./server/listen.js";
export { openStores, type Stores } from "./store/env.js";
export type { NewRun } from "./store/runs.js";
export type { ConceptItem, CrossMappingRun, Project, SchemaItem } from "./store/types.js";
