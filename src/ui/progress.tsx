// Progress of a project's review: counts per status/method, the share reviewed and, for concept items
// with source frequencies, the share of source occurrences covered (Usagi's measure).
import type { Stats } from "./api.js";

const percent = (share: number) => `${Math.round(share * 1000) / 10}%`;

export function Progress({ stats, concept }: { stats: Stats; concept: boolean }) {
  const counts = (concept ? stats.by_method : stats.by_status) ?? {};
  return (
    <section class="progress" aria-label="Progress">
      <p>
        <label for="reviewed-bar">
          Reviewed {stats.reviewed} of {stats.total} ({percent(stats.reviewed_share)})
        </label>{" "}
        <progress id="reviewed-bar" max={1} value={stats.reviewed_share} />
        {stats.coverage_share !== null && (
          <>
            {" "}
            <label for="coverage-bar">
              Source occurrences covered: {percent(stats.coverage_share)} ({stats.covered_frequency} of{" "}
              {stats.source_frequency_total})
            </label>{" "}
            <progress id="coverage-bar" max={1} value={stats.coverage_share} />
          </>
        )}
      </p>
      <ul class="counts">
        {Object.entries(counts).map(([k, n]) => (
          <li key={k}>
            <span class={`state state-${k}`}>{k}</span> {n}
          </li>
        ))}
      </ul>
    </section>
  );
}
