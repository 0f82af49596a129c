// observation_period for every person without one that crossmap did not derive itself: from the earliest
// start to the latest end (or start) of the person's events (the OHDSI convention, as ETL-Synthea derives
// it). Ids come from the registry (`derived:<person_id>`), so a later finish updates the same row when new
// events widen the span, and ids never clash with periods a mapping wrote.
import type { SqlClient } from "../db/client.js";
import { qualified } from "../db/client.js";
import type { CdmProfile } from "./model.js";
import { IdRegistry } from "./registry.js";
import { loadDbRegistry, saveDbRegistry } from "./registry-stores.js";

export interface PeriodReport {
  created: number;
  updated: number;
  /** Persons with no event at all: no period can be derived. */
  personsWithoutEvents: number;
}

const NAMESPACE = "observation_period";
const PREFIX = "derived:";

export async function derivePeriods(
  client: SqlClient,
  profile: CdmProfile,
  tables: Set<string>,
): Promise<PeriodReport> {
  const t = (name: string) => qualified(client, name);
  const p = profile.observation_period;
  const events = p.events
    .filter((e) => tables.has(e.table))
    .map((e) =>
      e.end
        ? `SELECT person_id, ${e.start} AS s, GREATEST(${e.start}, ${e.end}) AS e FROM ${t(e.table)}`
        : `SELECT person_id, ${e.start} AS s, ${e.start} AS e FROM ${t(e.table)}`,
    );
  const spans = await client.query<{ person_id: number; s: string; e: string }>(
    `SELECT ev.person_id, min(ev.s) AS s, max(ev.e) AS e FROM (${events.join(" UNION ALL ")}) ev ` +
      `JOIN ${t("person")} pe ON pe.person_id = ev.person_id WHERE ev.s IS NOT NULL GROUP BY ev.person_id`,
  );
  const [persons] = await client.query<{ n: number }>(`SELECT count(*) AS n FROM ${t("person")}`);
  const ids = new IdRegistry();
  await loadDbRegistry(client, ids);
  const existing = new Map<number, { id: number; s: string; e: string }[]>();
  for (const r of await client.query<{ id: number; person_id: number; s: string; e: string }>(
    `SELECT observation_period_id AS id, person_id, observation_period_start_date AS s, observation_period_end_date AS e FROM ${t("observation_period")}`,
  )) {
    const list = existing.get(r.person_id) ?? [];
    list.push(r);
    existing.set(r.person_id, list);
  }
  const [max] = await client.query<{ m: number | null }>(
    `SELECT max(observation_period_id) AS m FROM ${t("observation_period")}`,
  );
  ids.reserve(NAMESPACE, max?.m ?? 0);
  const inserts: string[] = [];
  const updates: { id: number; s: string; e: string }[] = [];
  for (const span of spans) {
    const periods = existing.get(span.person_id) ?? [];
    const own = ids.find(NAMESPACE, `${PREFIX}${span.person_id}`);
    const mine = periods.find((q) => q.id === own);
    if (mine) {
      if (mine.s !== span.s || mine.e !== span.e) updates.push({ id: mine.id, s: span.s, e: span.e });
      continue;
    }
    if (periods.length > 0) continue; // the mapping wrote this person's periods
    const id = own ?? ids.idFor(NAMESPACE, `${PREFIX}${span.person_id}`);
    inserts.push(`${id},${span.person_id},${span.s},${span.e},${p.period_type_concept_id}\n`);
  }
  await client.transaction(async () => {
    if (inserts.length > 0) {
      await client.copyIn(
        "observation_period",
        [
          "observation_period_id",
          "person_id",
          "observation_period_start_date",
          "observation_period_end_date",
          "period_type_concept_id",
        ],
        [inserts.join("")],
      );
    }
    await saveDbRegistry(client, ids.blocks());
    for (const u of updates) {
      await client.query(
        `UPDATE ${t("observation_period")} SET observation_period_start_date = CAST($1 AS date), ` +
          "observation_period_end_date = CAST($2 AS date) WHERE observation_period_id = $3",
        [u.s, u.e, u.id],
      );
    }
  });
  return {
    created: inserts.length,
    updated: updates.length,
    personsWithoutEvents: (persons?.n ?? 0) - spans.length,
  };
}
