// A loopback HTTP server that answers each request from a script, and keeps what it was sent: for the FHIR
// client and sender tests, which need exact answers in an exact order (a real FHIR server is in
// test/support/fhir-server.ts).
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface Scripted {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ScriptedServer {
  url: string;
  requests: { headers: Record<string, string | string[] | undefined>; body: string }[];
  close(): Promise<void>;
}

export async function scriptedServer(answer: (n: number, body: string) => Scripted): Promise<ScriptedServer> {
  const requests: ScriptedServer["requests"] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      requests.push({ headers: req.headers, body });
      const a = answer(requests.length - 1, body);
      res.writeHead(a.status, { "content-type": "application/fhir+json", ...a.headers });
      res.end(a.body === undefined ? "" : JSON.stringify(a.body));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/fhir`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const oo = (code: string, diagnostics: string, expression?: string[]) => ({
  resourceType: "OperationOutcome",
  issue: [{ severity: "error", code, diagnostics, ...(expression ? { expression } : {}) }],
});
