// Every JetStream name crossmap uses, in one place: streams, subjects, the shared consumer and headers.
// docs/scale-out.md lists them for operators; change both together.

/** Batches waiting for a worker. WorkQueue retention: a batch leaves the stream when a worker acks it. */
export const WORK_STREAM = "CROSSMAP_WORK";
/** Mapped batches, kept until their run completes (then purged), so that a stopped run can resume. */
export const RESULT_STREAM = "CROSSMAP_RESULTS";
/** One descriptor per run (the crossmaps' text, stage options, inputs) and its latest state. */
export const RUN_STREAM = "CROSSMAP_RUNS";
/** The durable pull consumer every `crossmap worker` shares. */
export const WORKERS_CONSUMER = "crossmap-workers";

export const workSubject = (run: string): string => `crossmap.work.${run}`;
export const resultSubject = (run: string): string => `crossmap.result.${run}`;
export const runSubject = (run: string): string => `crossmap.run.${run}`;
export const runStateSubject = (run: string): string => `crossmap.run.${run}.state`;
/** Plain NATS (not stored): what workers tell a coordinator, e.g. that they cannot map its run. */
export const noticeSubject = (run: string): string => `crossmap.notice.${run}`;
/** The server's advisory when a batch was delivered max_deliver times without an ack. */
export const maxDeliveriesAdvisory = (stream: string, consumer: string): string =>
  `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${stream}.${consumer}`;

export const HEADER = {
  run: "Crossmap-Run",
  batch: "Crossmap-Batch",
  part: "Crossmap-Part",
  parts: "Crossmap-Parts",
  worker: "Crossmap-Worker",
  /** On a result: how many times the server had delivered the batch to a worker (1 = first time). */
  deliveries: "Crossmap-Deliveries",
  /** On a result: the worker could not map the batch (a defect, not bad input); the value says why. */
  error: "Crossmap-Error",
  sourceId: "Crossmap-Source-Id",
  sourceSubject: "Crossmap-Source-Subject",
  sourceSeq: "Crossmap-Source-Seq",
  /** On a feed output: how many warning and error issues it has, and the issues (feed-issues.ts). */
  warnings: "Crossmap-Warnings",
  errors: "Crossmap-Errors",
  issues: "Crossmap-Issues",
  issuesOmitted: "Crossmap-Issues-Omitted",
} as const;

/** Run ids are subject tokens and consumer-name safe: `20261123T160809-3f9a1c`. */
export const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "");
  const random = Math.floor(Math.random() * 0x1000000)
    .toString(16)
    .padStart(6, "0");
  return `${stamp}-${random}`;
}

/** A value as one subject token: dots, wildcards and white space would change the subject's shape. */
export function subjectToken(value: string): string {
  const token = value.replace(/[.*>\s]/g, "_");
  return token === "" ? "_" : token;
}
