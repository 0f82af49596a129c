// A DQD run as the JSON DataQualityDashboard writes (jsonlite's defaults): scalars of the top level and of
// `Overview` as one-element arrays, `Metadata` as an array of one row, and NA fields left out of each
// check result, so DQD's viewer and scripts written against its files (`Overview.countTotal[0]`) read it.
import type { DqRun } from "./run.js";

export function dqdJson(run: DqRun): string {
  const boxed = (o: object) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, [v]]));
  return JSON.stringify({
    startTimestamp: [run.startTimestamp],
    endTimestamp: [run.endTimestamp],
    executionTime: [run.executionTime],
    executionTimeSeconds: [run.executionTimeSeconds],
    CheckResults: run.CheckResults,
    Metadata: run.Metadata,
    Overview: boxed(run.Overview),
  });
}
