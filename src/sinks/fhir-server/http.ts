// One POST to a FHIR server over node:http(s) on kept-alive connections, with a deadline for the whole
// exchange. Not fetch: its web streams (encode, clone and transfer the body; a signal per request) took 10%
// of the CPU of sending the OMOP sample to an in-process server, for nothing the writer uses; node:http's
// client added 2% where fetch was (profiled, bench/fhir-server.ts).
import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type RequestOptions,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { urlToHttpOptions } from "node:url";

export interface RawAnswer {
  status: number;
  statusText: string;
  retryAfter: string | null;
  text: string;
}

/** Thrown when no whole answer came within the deadline (named as AbortSignal.timeout's error is). */
export class TimeoutError extends Error {
  override readonly name = "TimeoutError";
}

export class HttpPoster {
  /** Where each request goes, worked out once: given a URL, node:http converts it on every request. */
  private readonly target: RequestOptions;
  private readonly agent: HttpAgent;
  private readonly request: typeof httpRequest;

  constructor(url: string) {
    const u = new URL(url);
    const https = u.protocol === "https:";
    // Idle connections are kept for the next Bundle (a new TCP/TLS handshake per Bundle costs the server
    // more than parsing it); the dispatcher bounds how many are busy at once.
    this.agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    this.request = https ? httpsRequest : httpRequest;
    this.target = { ...urlToHttpOptions(u), method: "POST", agent: this.agent };
  }

  /** POSTs `body`; rejects on a failed connection or when the whole answer takes longer than `timeoutMs`. */
  post(body: string | Buffer, headers: Record<string, string>, timeoutMs: number): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (err: Error | undefined, answer?: RawAnswer) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(answer as RawAnswer);
      };
      const req = this.request(
        {
          ...this.target,
          headers: {
            ...headers,
            "content-length": String(typeof body === "string" ? Buffer.byteLength(body) : body.length),
          },
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", (err) => finish(err));
          res.on("aborted", () => finish(new Error("the connection closed before the answer was whole")));
          res.on("end", () => {
            const retryAfter = res.headers["retry-after"];
            finish(undefined, {
              status: res.statusCode ?? 0,
              statusText: res.statusMessage ?? "",
              retryAfter: typeof retryAfter === "string" ? retryAfter : null,
              text: (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString("utf8"),
            });
          });
        },
      );
      const timer = setTimeout(() => {
        const err = new TimeoutError(`no answer within ${timeoutMs} ms`);
        finish(err);
        req.destroy(err);
      }, timeoutMs);
      req.on("error", (err) => finish(err));
      req.end(body);
    });
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}
