// `crossmap db finish`: what the CDM expects after a load, in order: observation_period per person, the
// condition and drug eras, then the official primary keys, foreign keys and indices. A constraint the data
// breaks is not applied; every such one is named, and the command fails with them (exit 2).
import { AppError } from "../../errors.js";
import type { SqlClient } from "../db/client.js";
import { applyConstraints, type ConstraintReport } from "./constraints.js";
import { type EraReport, rebuildEras } from "./eras.js";
import { loadModel } from "./model.js";
import { derivePeriods, type PeriodReport } from "./observation-period.js";
import { checkCdmSchema, existingTables } from "./schema-state.js";

export interface FinishReport {
  periods: PeriodReport;
  eras: EraReport;
  constraints: ConstraintReport;
}

export async function finishDatabase(client: SqlClient): Promise<FinishReport> {
  const model = loadModel(client.dialect);
  await checkCdmSchema(client);
  const tables = await existingTables(client);
  const periods = await derivePeriods(client, model.profile, tables);
  const eras = await rebuildEras(client, model.profile);
  const constraints = await applyConstraints(client, model);
  return { periods, eras, constraints };
}

/** The error a finish with violations ends in (exit 2), naming each one. */
export function violationsError(client: SqlClient, r: FinishReport): AppError | undefined {
  const v = r.constraints.violations;
  if (v.length === 0) return undefined;
  return new AppError(
    409,
    "db_constraints",
    `${client.display}: ${v.length} official constraint(s) not in force:`,
    v.map((message) => ({ path: [], code: "constraint_violation", message })),
  );
}

export function formatFinish(client: SqlClient, r: FinishReport): string[] {
  const c = r.constraints;
  const fk =
    client.dialect === "duckdb"
      ? `${c.foreignKeys.verified} foreign keys verified (DuckDB cannot add them to existing tables)`
      : `${c.foreignKeys.applied + c.foreignKeys.inForce} foreign keys in force (${c.foreignKeys.applied} applied now)`;
  const lines = [
    `crossmap db finish: ${client.display}`,
    `  observation_period: ${r.periods.created} derived, ${r.periods.updated} widened` +
      (r.periods.personsWithoutEvents > 0
        ? `; ${r.periods.personsWithoutEvents} persons have no event to derive one from`
        : ""),
    `  condition_era: ${r.eras.conditionEras} rows; drug_era: ${r.eras.drugEras} rows` +
      (r.eras.drugExposuresWithoutIngredient > 0
        ? ` (${r.eras.drugExposuresWithoutIngredient} drug exposures have no ingredient in the vocabulary's CONCEPT_ANCESTOR: in no era)`
        : ""),
    `  ${c.primaryKeys.applied + c.primaryKeys.inForce} primary keys in force (${c.primaryKeys.applied} applied now); ${fk}`,
    `  indices: ${c.indices.created} created, ${c.indices.existing} already there`,
  ];
  return lines;
}
