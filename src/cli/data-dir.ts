// Shared by the commands that open the data directory: the option, and open-use-close around an action.
import type { Command } from "commander";
import { openStores, type Stores } from "../store/env.js";

export const DEFAULT_DATA_DIR = "./data";

export const withDataDir = (cmd: Command): Command =>
  cmd.option("--data-dir <dir>", "directory of the LMDB environment", DEFAULT_DATA_DIR);

/** Opens the stores, runs `fn`, and always closes them, so a CLI call never leaves the environment open. */
export async function withStores<R>(dataDir: string, fn: (stores: Stores) => Promise<R>): Promise<R> {
  const stores = openStores(dataDir);
  try {
    return await fn(stores);
  } finally {
    await stores.close();
  }
}

export const printJson = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};
