// The listener's counters and gauges for `GET /metrics` (Prometheus text) and `GET /healthz`.
import { Metrics } from "../scale/metrics.js";

export function listenMetrics() {
  const m = new Metrics("crossmap_listen");
  return {
    registry: m,
    received: m.counter("received_total", "Frames received (every one gets an answer or is counted below)."),
    acks: m.counter("acks_total", "Acknowledgments sent, by MSA-1 code (AA AE AR, CA CE CR)."),
    refused: m.counter("refused_total", "Frames refused, by reason."),
    duplicates: m.counter("duplicates_total", "Resends of a kept message: given the original answer again."),
    ignored: m.counter("ignored_total", "Acknowledgments received from senders (not answered)."),
    converted: m.counter("converted_total", "Messages converted and committed to the output."),
    deadLetters: m.counter(
      "dead_letters_total",
      "Messages that could not be converted (to the dead-letter store).",
    ),
    issues: m.counter("issues_total", "Issues of converted messages, by severity."),
    delayed: m.counter(
      "acks_delayed_total",
      "Messages that waited for room before being kept (backpressure).",
    ),
    undelivered: m.counter(
      "app_acks_undelivered_total",
      "Application acknowledgments not sent because the connection had closed.",
    ),
    connectionsTotal: m.counter("connections_total", "Connections accepted."),
    connectionsRefused: m.counter(
      "connections_refused_total",
      "Connections refused at the --max-connections cap.",
    ),
    closed: m.counter("connections_closed_total", "Connections the listener closed, by reason."),
    connections: m.gauge("connections", "Open connections."),
    inJournal: m.gauge("journal_pending", "Messages kept in the journal and not yet converted."),
    lag: m.gauge("lag_seconds", "Age of the oldest message kept and not yet converted."),
    commitSeconds: m.counter("commit_seconds_total", "Time spent committing output with the journal."),
    outputRetries: m.counter(
      "output_retries_total",
      "Requests to the output tried again (a FHIR server's 429/5xx, a timeout, a failed connection).",
    ),
  };
}

export type ListenMetrics = ReturnType<typeof listenMetrics>;
