// Shared by the commands that open the data directory: the options, the rule for a directory that does
// not exist yet, and open-use-close around an action.
import { mkdirSync, statSync } from "node:fs";
import type { Command } from "commander";
import { AppError } from "../errors.js";
import { openStores, type Stores } from "../store/env.js";

export const DEFAULT_DATA_DIR = "./data";

export interface DataDirOptions {
  dataDir: string;
  init?: boolean;
}

export const withDataDir = (cmd: Command): Command =>
  cmd
    .option("--data-dir <dir>", "directory of the LMDB environment", DEFAULT_DATA_DIR)
    .option("--init", "create the data directory (a new, empty database) if it does not exist");

/**
 * Makes sure `dir` exists. A missing directory is created only when `create` says so (`--init`, or
 * `serve` with the default directory): a mistyped --data-dir must not quietly start an empty database.
 * Returns whether it was created; callers say so on stderr.
 */
export function prepareDataDir(
  dir: string,
  create: boolean,
  /** The command has --init (a `map --project` has not: an empty database holds no project). */
  hasInit = true,
): "existed" | "created" {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new AppError(
        400,
        "invalid_data_dir",
        `cannot use data directory ${dir}: ${(err as Error).message}`,
      );
    }
    if (!create) {
      throw new AppError(
        400,
        "no_data_dir",
        `data directory ${dir} does not exist; check --data-dir${hasInit ? ", or pass --init to create a new, empty one" : ""}`,
      );
    }
    mkdirSync(dir, { recursive: true });
    return "created";
  }
  if (!isDir) throw new AppError(400, "invalid_data_dir", `data directory ${dir} is not a directory`);
  return "existed";
}

/** Opens the stores, runs `fn`, and always closes them, so a CLI call never leaves the environment open. */
export async function withStores<R>(opts: DataDirOptions, fn: (stores: Stores) => Promise<R>): Promise<R> {
  if (prepareDataDir(opts.dataDir, opts.init === true) === "created") {
    process.stderr.write(`crossmap: created data directory ${opts.dataDir} (a new, empty database)\n`);
  }
  const stores = openStores(opts.dataDir);
  try {
    return await fn(stores);
  } finally {
    await stores.close();
  }
}

/**
 * Throws unless `project` is the id of a project in the data directory. Projects are created by name but
 * chosen by id, so a name given for the id is answered with the id it stands for.
 */
export function requireProject(stores: Stores, project: string, dataDir: string): void {
  if (stores.projects.get(project)) return;
  const named = stores.projects.list().filter((p) => p.name === project);
  const hint =
    named.length > 0
      ? `; --project takes the project's id: the project named ${JSON.stringify(project)} is ${named.map((p) => p.id).join(" or ")}`
      : ` (\`crossmap projects list --data-dir ${dataDir}\` prints the ids)`;
  throw new AppError(404, "not_found", `Project ${project} not found in ${dataDir}${hint}`);
}

export const printJson = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};
