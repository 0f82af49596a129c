// condition_era and drug_era by the OHDSI era rules (as the CDM's era scripts build them), rebuilt from
// scratch at every `db finish`: they are derived, so ids are their row numbers in (person, concept, start)
// order. Dates are whole days; `d + n` and `d1 - d2` mean the same in PostgreSQL and DuckDB.
import type { SqlClient } from "../db/client.js";
import { qualified } from "../db/client.js";
import type { CdmProfile } from "./model.js";

export interface EraReport {
  conditionEras: number;
  drugEras: number;
  /** Drug exposures (with a concept) whose ingredient the vocabulary does not give: in no era. */
  drugExposuresWithoutIngredient: number;
}

const sqlText = (s: string) => `'${s.replaceAll("'", "''")}'`;

/**
 * Spans of one key (person, concept) merged when the next starts at most `gap` days after the latest end
 * so far; `spans` has columns person_id, concept_id, s, e (and n, the occurrences each stands for).
 */
function merged(spans: string, gap: number, prefix = ""): string {
  return `
    ${prefix}marked AS (
      SELECT person_id, concept_id, s, e, n,
        CASE WHEN max(e) OVER (PARTITION BY person_id, concept_id ORDER BY s, e
                               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) + ${gap} >= s
             THEN 0 ELSE 1 END AS starts
      FROM ${spans}
    ),
    ${prefix}grouped AS (
      SELECT person_id, concept_id, s, e, n,
        sum(starts) OVER (PARTITION BY person_id, concept_id ORDER BY s, e ROWS UNBOUNDED PRECEDING) AS era
      FROM ${prefix}marked
    )`;
}

export async function rebuildEras(client: SqlClient, profile: CdmProfile): Promise<EraReport> {
  const t = (name: string) => qualified(client, name);
  // Conditions: an occurrence without an end lasts one day (the OHDSI scripts' DATEADD(day, 1, start)).
  const conditionSelect = `
    WITH spans AS (
      SELECT person_id, condition_concept_id AS concept_id, condition_start_date AS s,
        COALESCE(condition_end_date, condition_start_date + 1) AS e, 1 AS n
      FROM ${t("condition_occurrence")} WHERE condition_concept_id <> 0
    ),
    ${merged("spans", profile.condition_era.gap_days)},
    eras AS (
      SELECT person_id, concept_id, min(s) AS s, max(e) AS e, sum(n) AS n FROM grouped GROUP BY person_id, concept_id, era
    )
    SELECT row_number() OVER (ORDER BY person_id, concept_id, s) AS id, person_id, concept_id, s, e, n FROM eras`;
  await client.exec(`DELETE FROM ${t("condition_era")}`);
  await client.exec(
    `INSERT INTO ${t("condition_era")} (condition_era_id, person_id, condition_concept_id, condition_era_start_date, ` +
      `condition_era_end_date, condition_occurrence_count) ${conditionSelect}`,
  );

  const d = profile.drug_era;
  const vocabularies = d.ingredient_vocabularies.map(sqlText).join(", ");
  const ingredients = `
    ingredient AS (
      SELECT ca.descendant_concept_id AS drug_concept_id, ca.ancestor_concept_id AS ingredient_id
      FROM ${t("concept_ancestor")} ca JOIN ${t("concept")} c ON c.concept_id = ca.ancestor_concept_id
      WHERE c.concept_class_id = ${sqlText(d.ingredient_class)} AND c.vocabulary_id IN (${vocabularies})
      UNION
      SELECT concept_id, concept_id FROM ${t("concept")}
      WHERE concept_class_id = ${sqlText(d.ingredient_class)} AND vocabulary_id IN (${vocabularies})
    )`;
  // Drugs: end = end date, else start + days_supply, else start + 1; overlapping exposures first make
  // sub-exposures (gap 0), which are merged into eras; gap_days is the era's days not covered by them.
  const drugSelect = `
    WITH ${ingredients},
    exposures AS (
      SELECT de.person_id, i.ingredient_id AS concept_id, de.drug_exposure_start_date AS s,
        GREATEST(COALESCE(de.drug_exposure_end_date,
          CASE WHEN de.days_supply > 0 THEN de.drug_exposure_start_date + de.days_supply END,
          de.drug_exposure_start_date + 1), de.drug_exposure_start_date) AS e, 1 AS n
      FROM ${t("drug_exposure")} de JOIN ingredient i ON i.drug_concept_id = de.drug_concept_id
      WHERE de.drug_concept_id <> 0
    ),
    ${merged("exposures", 0, "sub_")},
    subs AS (
      SELECT person_id, concept_id, min(s) AS s, max(e) AS e, sum(n) AS n
      FROM sub_grouped GROUP BY person_id, concept_id, era
    ),
    ${merged("subs", d.gap_days)},
    eras AS (
      SELECT person_id, concept_id, min(s) AS s, max(e) AS e, sum(n) AS n,
        (max(e) - min(s)) - sum(e - s) AS gap
      FROM grouped GROUP BY person_id, concept_id, era
    )
    SELECT row_number() OVER (ORDER BY person_id, concept_id, s) AS id, person_id, concept_id, s, e, n, gap FROM eras`;
  await client.exec(`DELETE FROM ${t("drug_era")}`);
  await client.exec(
    `INSERT INTO ${t("drug_era")} (drug_era_id, person_id, drug_concept_id, drug_era_start_date, drug_era_end_date, ` +
      `drug_exposure_count, gap_days) ${drugSelect}`,
  );
  const [conditionEras] = await client.query<{ n: number }>(
    `SELECT count(*) AS n FROM ${t("condition_era")}`,
  );
  const [drugEras] = await client.query<{ n: number }>(`SELECT count(*) AS n FROM ${t("drug_era")}`);
  const [without] = await client.query<{ n: number }>(
    `WITH ${ingredients} SELECT count(*) AS n FROM ${t("drug_exposure")} de ` +
      "WHERE de.drug_concept_id <> 0 AND NOT EXISTS (SELECT 1 FROM ingredient i WHERE i.drug_concept_id = de.drug_concept_id)",
  );
  return {
    conditionEras: conditionEras?.n ?? 0,
    drugEras: drugEras?.n ?? 0,
    drugExposuresWithoutIngredient: without?.n ?? 0,
  };
}
