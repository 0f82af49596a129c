// `crossmap keys create|list|revoke`: issue API keys (shown once), list them without secrets, revoke them.
import type { Command } from "commander";
import { AppError } from "../errors.js";
import type { KeyScope } from "../store/types.js";
import { printJson, withDataDir, withStores } from "./data-dir.js";

interface CreateOptions {
  dataDir: string;
  admin?: boolean;
  project?: string;
  scope?: string;
  name?: string;
}

const usage = (message: string) => new AppError(400, "invalid_argument", message);

/** Exactly one of --admin or --project with --scope read|write. */
function scopeOf(opts: CreateOptions): { scope: KeyScope; projectId: string | null } {
  if (opts.admin) {
    if (opts.project !== undefined || opts.scope !== undefined) {
      throw usage("--admin cannot be combined with --project or --scope");
    }
    return { scope: "admin", projectId: null };
  }
  if (opts.project === undefined) throw usage("give either --admin or --project <id> --scope read|write");
  if (opts.scope !== "read" && opts.scope !== "write") throw usage("--scope must be read or write");
  return { scope: opts.scope, projectId: opts.project };
}

/** A name as audit events show it: 1-200 characters, no control characters; absent is null. */
function reviewerName(name: string | undefined): string | null {
  if (name === undefined) return null;
  const trimmed = name.trim();
  if (trimmed === "" || trimmed.length > 200 || /\p{Cc}/u.test(trimmed)) {
    throw usage("--name must be 1 to 200 characters without control characters");
  }
  return trimmed;
}

export function registerKeys(program: Command): void {
  const keys = program.command("keys").description("manage API keys");
  withDataDir(
    keys
      .command("create")
      .description("create an API key and print it once, as JSON")
      .option("--admin", "key for every project and for creating projects")
      .option("--project <id>", "project the key is for")
      .option("--scope <scope>", "read or write")
      .option("--name <name>", 'the reviewer using the key, shown in audit history, e.g. "Dr. Ada Lovelace"'),
  ).action(async (opts: CreateOptions) => {
    const { scope, projectId } = scopeOf(opts);
    const name = reviewerName(opts.name);
    const created = await withStores(opts, (stores) =>
      stores.write(() => {
        if (projectId !== null && !stores.projects.get(projectId)) {
          throw new AppError(404, "not_found", `Project ${projectId} not found`);
        }
        return stores.keys.create(scope, projectId, name);
      }),
    );
    printJson({ ...created.key, key: created.secret });
  });
  withDataDir(keys.command("list").description("list API keys (never their secrets) as JSON")).action(
    async (opts: { dataDir: string }) => {
      printJson({ keys: await withStores(opts, async (stores) => stores.keys.list()) });
    },
  );
  withDataDir(keys.command("revoke <id>").description("revoke an API key; it stops working at once")).action(
    async (id: string, opts: { dataDir: string }) => {
      const revoked = await withStores(opts, (stores) => stores.write(() => stores.keys.revoke(id)));
      if (!revoked) throw new AppError(404, "not_found", `API key ${id} not found`);
      printJson(revoked);
    },
  );
}
