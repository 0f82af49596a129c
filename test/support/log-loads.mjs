// Test support, for `node --import`: writes `loaded <url>` to stderr for every module the process loads
// (ES modules and packages through the ESM loader), so a test can tell which modules a command needs.
import { register } from "node:module";

register("./log-loads-hook.mjs", import.meta.url);
