// A test double in front of a real FHIR server: for the requests a script picks it answers 429 or 503 (with
// or without Retry-After), or holds the request without answering; every other request goes through to the
// server as it came, and its answer back as it was.
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export type Fault =
  /** An answer of its own (429, 5xx; or a 4xx with `diagnostics`, as a server refusing the Bundle). */
  { status: number; retryAfter?: string; diagnostics?: string } | { hang: true } | { forward: true };

export interface FlakyProxy {
  url: string;
  /** What happened to each request, in arrival order: `503`, `429`, `hang` or the forwarded answer's status. */
  readonly seen: string[];
  /** The Authorization header of each request ("" when none). */
  readonly authorization: string[];
  close(): Promise<void>;
}

/** `script(n, body)` says what to do with the n-th request (0-based), given its body. */
export async function startFlakyProxy(
  target: string,
  script: (n: number, body: string) => Fault,
): Promise<FlakyProxy> {
  const seen: string[] = [];
  const authorization: string[] = [];
  const targetUrl = new URL(target);
  const server = createServer(async (req, res) => {
    const n = seen.length;
    seen.push("?");
    authorization.push(req.headers.authorization ?? "");
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const fault = script(n, body.toString("utf8"));
    if ("hang" in fault) {
      // Never answered: the client must give up on it (its timeout) and try again.
      seen[n] = "hang";
      return;
    }
    if ("status" in fault) {
      seen[n] = String(fault.status);
      const headers: Record<string, string> = { "content-type": "application/fhir+json" };
      if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
      res.writeHead(fault.status, headers);
      res.end(
        JSON.stringify({
          resourceType: "OperationOutcome",
          issue: [
            fault.diagnostics !== undefined
              ? { severity: "error", code: "processing", diagnostics: fault.diagnostics }
              : { severity: "error", code: "throttled", diagnostics: `try again later (${fault.status})` },
          ],
        }),
      );
      return;
    }
    forward(req, body, targetUrl, `${targetUrl.pathname}${(req.url ?? "/").slice(targetUrl.pathname.length)}`)
      .then((answer) => {
        seen[n] = String(answer.status);
        res.writeHead(answer.status, { "content-type": answer.type });
        res.end(answer.body);
      })
      .catch((err: Error) => {
        seen[n] = "error";
        res.writeHead(502);
        res.end(err.message);
      });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${targetUrl.pathname}`,
    seen,
    authorization,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function forward(
  req: IncomingMessage,
  body: Buffer,
  target: URL,
  path: string,
): Promise<{ status: number; type: string; body: string }> {
  const headers: Record<string, string> = {};
  for (const h of ["content-type", "accept", "prefer", "authorization"]) {
    const v = req.headers[h];
    if (typeof v === "string") headers[h] = v;
  }
  const res = await fetch(new URL(path, target.origin), {
    method: req.method ?? "GET",
    headers,
    ...(body.length > 0 ? { body: body.toString("utf8") } : {}),
  });
  return { status: res.status, type: res.headers.get("content-type") ?? "", body: await res.text() };
}
