// Delivers one Bundle and reads the server's answer: which entries it accepted and which it rejected, with
// the OperationOutcome that says why. Entries of a batch the server could not process for now (429, 5xx)
// are sent again on their own, a bounded number of times; a rejection is never retried.
import { AppError } from "../../errors.js";
import { bundleBody, type Outgoing } from "./bundles.js";
import { type Answer, type FhirClient, isRetryable, outcomeText } from "./client.js";

export interface Rejection<O> {
  origin: O;
  /** `PUT Patient/1`, or for a whole transaction `transaction of 12 entries`. */
  request: string;
  /** HTTP status of the answer, or 0 when the server gave none for the entry. */
  status: number;
  /** `fhir_rejected`, or `fhir_gave_up` when the entry kept failing for a while (429/5xx). */
  code: "fhir_rejected" | "fhir_gave_up";
  message: string;
  /** Resources it stands for (a rejected transaction stands for all of its entries). */
  resources: number;
}

export interface Delivery<O> {
  accepted: number;
  rejected: Rejection<O>[];
  /** Transactions sent again one message each, after the server refused the merged one they were in. */
  resent?: number;
}

const statusOf = (s: unknown): number => {
  const n = Number.parseInt(String(s ?? ""), 10);
  return Number.isNaN(n) ? 0 : n;
};

interface ResponseEntry {
  response?: { status?: string; outcome?: unknown };
}

export class Sender {
  constructor(private readonly client: FhirClient) {}

  /** Sends `out` until each entry is accepted or rejected; throws when the server cannot be used at all. */
  async deliver<O>(out: Outgoing<O>): Promise<Delivery<O>> {
    const answer = await this.client.postBundle(bundleBody(out));
    this.refuseAccess(answer);
    if (out.type === "transaction") {
      if (out.parts !== undefined && (answer.status < 200 || answer.status >= 300))
        return this.split(out.parts);
      return this.transaction(out, answer);
    }
    return this.batch(out, answer);
  }

  /**
   * The messages of a merged transaction the server refused, each sent again as its own: the refusal is all
   * or nothing and names no message, so this finds which the server refuses (an issue each) and lets the
   * others land, as if they had never been merged. Only a refusal gets here: the client already tried again
   * on 429/5xx, sending the merged one as it was. One after another: they share no resource, so any order
   * does, and a refusal is rare enough not to need more.
   */
  private async split<O>(parts: Outgoing<O>[]): Promise<Delivery<O>> {
    const delivery: Delivery<O> = { accepted: 0, rejected: [], resent: parts.length };
    for (const part of parts) {
      const d = await this.deliver(part);
      delivery.accepted += d.accepted;
      for (const r of d.rejected) delivery.rejected.push(r);
    }
    return delivery;
  }

  /** 401 and 403 stop the run: no later Bundle would fare better, and the issues would hide the cause. */
  private refuseAccess(answer: Answer): void {
    if (answer.status !== 401 && answer.status !== 403) return;
    const o = this.client.options;
    const why = outcomeText(answer.body) || answer.text.trim().slice(0, 200);
    const hint =
      o.authorization === undefined
        ? `no Authorization header was sent (set ${o.authorizationSource ?? "the header's environment variable"})`
        : `the Authorization header from ${o.authorizationSource ?? "the environment"} was refused`;
    throw new AppError(
      answer.status,
      "fhir_server_refused",
      `the FHIR server at ${o.base} answered ${answer.status}${why ? ` (${why})` : ""}: ${hint}`,
    );
  }

  private transaction<O>(out: Outgoing<O>, answer: Answer): Delivery<O> {
    if (answer.status >= 200 && answer.status < 300) return { accepted: out.entries.length, rejected: [] };
    // All or nothing: the message's resources were not written, and one issue says why.
    const n = out.entries.length;
    return {
      accepted: 0,
      rejected: [
        {
          origin: out.origins[0] as O,
          request: `transaction of ${n} entr${n === 1 ? "y" : "ies"}`,
          status: answer.status,
          code: "fhir_rejected",
          message: rejectionText(answer, out),
          resources: n,
        },
      ],
    };
  }

  private async batch<O>(out: Outgoing<O>, first: Answer): Promise<Delivery<O>> {
    const delivery: Delivery<O> = { accepted: 0, rejected: [] };
    let pending = out.entries.map((_, i) => i);
    let answer = first;
    const client = this.client;
    for (let attempt = 0; ; attempt++) {
      const again: number[] = [];
      const whole = answer.status >= 200 && answer.status < 300 ? undefined : answer;
      const entries = whole ? [] : ((answer.body as { entry?: ResponseEntry[] } | undefined)?.entry ?? []);
      pending.forEach((index, k) => {
        const r = entries[k]?.response;
        const status = whole ? whole.status : statusOf(r?.status);
        if (status >= 200 && status < 300) {
          delivery.accepted++;
          return;
        }
        if (!whole && isRetryable(status)) {
          again.push(index);
          return;
        }
        const message = whole
          ? rejectionText(whole, out)
          : r === undefined
            ? `the batch-response has no entry ${k} for it`
            : `${r.status ?? "no status"}${describe(r.outcome)}`;
        delivery.rejected.push(this.rejection(out, index, status, "fhir_rejected", message));
      });
      if (again.length === 0) return delivery;
      if (attempt >= client.options.retries) {
        for (const index of again) {
          const r = entries[pending.indexOf(index)]?.response;
          const message = `still ${r?.status ?? "failing"} after ${attempt + 1} tries${describe(r?.outcome)}`;
          delivery.rejected.push(this.rejection(out, index, statusOf(r?.status), "fhir_gave_up", message));
        }
        return delivery;
      }
      const wait = client.backoff(attempt);
      client.options.onRetry?.(`${again.length} batch entries answered 429/5xx`, wait);
      await client.sleep(wait);
      pending = again;
      const retry: Outgoing<O> = { ...out, entries: again.map((i) => out.entries[i] as string) };
      answer = await client.postBundle(bundleBody(retry));
      this.refuseAccess(answer);
    }
  }

  private rejection<O>(
    out: Outgoing<O>,
    index: number,
    status: number,
    code: Rejection<O>["code"],
    message: string,
  ): Rejection<O> {
    return {
      origin: out.origins[index] as O,
      request: out.requests[index] as string,
      status,
      code,
      message,
      resources: 1,
    };
  }
}

const describe = (outcome: unknown): string => {
  const text = outcomeText(outcome);
  return text ? `: ${text}` : "";
};

/** Why a whole Bundle was refused, with a hint where the status has a usual cause. */
function rejectionText(answer: Answer, out: Outgoing<unknown>): string {
  const why = outcomeText(answer.body) || answer.text.trim().slice(0, 300);
  const hint =
    answer.status === 413
      ? `; the Bundle of ${out.entries.length} entries is too large for the server (lower --fhir-batch-size)`
      : answer.status === 404 || answer.status === 405
        ? "; is the URL the server's FHIR base (where POST of a Bundle goes)?"
        : "";
  return `${answer.status}${why ? `: ${why}` : ""}${hint}`;
}
