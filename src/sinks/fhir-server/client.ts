// HTTP to a FHIR server: one POST of a Bundle to the base URL, tried again with backoff when the answer is
// 408, 425, 429 or 5xx, when the connection fails or when no answer comes in time (Retry-After honoured).
// Anything else (2xx, or a 4xx the server means) is handed back as the answer; the sender reads it. A server
// that has not answered once yet is not waited for: see `postBundle`.
import { AppError } from "../../errors.js";
import { HttpPoster } from "./http.js";

export interface ClientOptions {
  /** The FHIR base URL, without a trailing slash. */
  base: string;
  /** The whole `Authorization` header value (e.g. `Bearer eyJ...`), when the server needs one. */
  authorization?: string;
  /** Where the header value came from, for error messages (never the value itself). */
  authorizationSource?: string;
  /** Milliseconds a request may take before it is abandoned and tried again. */
  timeoutMs: number;
  /** Tries after the first, for one request. */
  retries: number;
  /** First backoff; it doubles on each retry (with jitter) up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  /** Longest wait a Retry-After header gets (a server asking for an hour gets this much). */
  maxRetryAfterMs: number;
  /** Told before each wait, for the summary's retry count. */
  onRetry?: (why: string, waitMs: number) => void;
  /** For tests: how to wait (default setTimeout). */
  sleep?: (ms: number) => Promise<void>;
}

export interface Answer {
  status: number;
  /**
   * The parsed JSON body, when there is one; parsed when first read, so that the answer to a transaction the
   * server accepted (a transaction-response of every entry's status and location) is never parsed: nothing
   * in it is used (profiled: 1% of the in-process bench's CPU).
   */
  readonly body: unknown;
  /** The body as text (for messages when it is not JSON). */
  text: string;
}

/** Statuses a later try may turn into success: the server is busy, overloaded or failing for a while. */
export const isRetryable = (status: number): boolean =>
  status === 408 || status === 425 || status === 429 || status >= 500;

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Retry-After as milliseconds: delay-seconds or an HTTP date (RFC 9110 10.2.3); undefined when absent. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export class FhirClient {
  /** How the client waits between tries (options.sleep, or a timer). */
  readonly sleep: (ms: number) => Promise<void>;
  /** Whether the server has answered any request (with any status) yet. */
  private answered = false;
  private readonly http: HttpPoster;
  private readonly headers: Record<string, string>;
  constructor(readonly options: ClientOptions) {
    this.sleep = options.sleep ?? defaultSleep;
    this.http = new HttpPoster(`${options.base}/`);
    this.headers = {
      "content-type": "application/fhir+json",
      accept: "application/fhir+json",
      // The response Bundle then lists statuses and locations, not every resource again.
      prefer: "return=minimal",
    };
    if (options.authorization !== undefined) this.headers.authorization = options.authorization;
  }

  /** Closes the kept-alive connections (a process that goes on after sending). */
  close(): void {
    this.http.close();
  }

  /**
   * POSTs `body` (a Bundle as JSON text, or its UTF-8 bytes) to the base URL until an answer that is not worth retrying comes;
   * throws an AppError (503) when the tries are used up. Until the server has answered once, a request that
   * finds no server (refused, unknown host, no route, TLS refused, or no answer within --fhir-timeout)
   * throws at once: a server that has never
   * answered is a wrong URL or a server that is down, and backing off through the retries only delays
   * saying so by minutes (87 s for a refused connection, 10 min for a silent server, with the defaults).
   */
  async postBundle(body: string | Buffer): Promise<Answer> {
    const o = this.options;
    let last = "";
    for (let attempt = 0; ; attempt++) {
      let waitFor: number | undefined;
      try {
        const res = await this.http.post(body, this.headers, o.timeoutMs);
        this.answered = true;
        const text = res.text;
        if (!isRetryable(res.status)) return answerOf(res.status, text);
        last = `${res.status}${res.statusText ? ` ${res.statusText}` : ""}${describeBody(text)}`;
        const after = retryAfterMs(res.retryAfter);
        if (after !== undefined) waitFor = Math.min(after, o.maxRetryAfterMs);
      } catch (err) {
        last = failureText(err, o.timeoutMs);
        if (!this.answered && noServer(err)) {
          throw new AppError(
            503,
            "fhir_server_unreachable",
            `the FHIR server at ${o.base} cannot be reached (${last}): is the URL right and the server up?`,
          );
        }
      }
      if (attempt >= o.retries) {
        throw new AppError(
          503,
          "fhir_server_unavailable",
          `the FHIR server at ${o.base} did not accept a Bundle after ${attempt + 1} tries (last: ${last})`,
        );
      }
      const wait = waitFor ?? this.backoff(attempt);
      o.onRetry?.(last, wait);
      await this.sleep(wait);
    }
  }

  /** Exponential backoff with full jitter, so that many writers do not come back at the same moment. */
  backoff(attempt: number): number {
    const o = this.options;
    const cap = Math.min(o.maxBackoffMs, o.backoffMs * 2 ** attempt);
    return Math.round(cap / 2 + (Math.random() * cap) / 2);
  }
}

/** An answer whose body is parsed on first read. */
function answerOf(status: number, text: string): Answer {
  let parsed: unknown;
  let read = false;
  return {
    status,
    get body() {
      if (!read) {
        parsed = parseBody(text);
        read = true;
      }
      return parsed;
    },
    text,
  };
}

function parseBody(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `: <diagnostics>` of an OperationOutcome body, or the start of a text body, for messages. */
function describeBody(text: string): string {
  const body = parseBody(text);
  const o = outcomeText(body);
  if (o) return `: ${o}`;
  const plain = text.trim().slice(0, 200);
  return plain ? `: ${plain}` : "";
}

/**
 * Failures that say no server is there: refused, no such host, no route, a certificate the client refuses,
 * no answer in time. Not a reset connection: a connection pool or proxy may hand over one the server has
 * just closed, and that is worth another try.
 */
function noServer(err: unknown): boolean {
  const e = err as Error & { code?: string; cause?: { code?: string } };
  if (e.name === "TimeoutError" || e.name === "AbortError") return true;
  const code = e.code ?? e.cause?.code ?? "";
  return /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ERR_TLS_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_)/.test(
    code,
  );
}

function failureText(err: unknown, timeoutMs: number): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e.name === "TimeoutError" || e.name === "AbortError")
    return `no answer within ${timeoutMs / 1000} s (--fhir-timeout)`;
  const cause = e.cause?.code ?? e.cause?.message;
  return cause ? `${e.message} (${cause})` : e.message;
}

interface OutcomeIssue {
  severity?: string;
  code?: string;
  diagnostics?: string;
  details?: { text?: string };
  expression?: string[];
  location?: string[];
}

/**
 * The error and fatal issues of an OperationOutcome as one line (`invalid: Invalid date (Patient.birthDate);
 * ...`), or "" when `body` is none or has none.
 */
export function outcomeText(body: unknown): string {
  const o = body as { resourceType?: unknown; issue?: OutcomeIssue[] } | undefined;
  if (o?.resourceType !== "OperationOutcome" || !Array.isArray(o.issue)) return "";
  const serious = o.issue.filter((i) => i.severity === "error" || i.severity === "fatal");
  return (serious.length > 0 ? serious : o.issue)
    .map((i) => {
      const text = i.diagnostics ?? i.details?.text ?? "";
      const where = i.expression ?? i.location;
      return `${i.code ?? "error"}: ${text}${where && where.length > 0 ? ` (${where.join(", ")})` : ""}`;
    })
    .join("; ");
}
