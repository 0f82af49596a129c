#!/usr/bin/env node
// Entry point for `npx crossmap`: runs the compiled CLI (built by `npm install` through the prepare script).
import module from "node:module";
import { capYoungGeneration } from "../dist/cli/young-generation.js";

// On Node 24, the commands that move records start again with Node 20's young-generation size, so that they
// hold as little memory as there (src/cli/young-generation.ts); elsewhere this does nothing.
capYoungGeneration();

// Node 22.1+ keeps the compiled code of the modules it loads in its temp-dir cache, which cuts the
// start-up of every later run (Node's documented advice for command-line tools); Node 20 lacks it.
module.enableCompileCache?.();

// The bundled CLI (scripts/bundle-cli.mjs: a few files instead of ~85 modules, a third of the start-up),
// or the compiled modules themselves when the build made no bundle.
const { run } = await import("../dist/bundle/main.js").catch((err) =>
  err?.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes("dist/bundle/main.js")
    ? import("../dist/cli/main.js")
    : Promise.reject(err),
);

run(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`crossmap: internal error: ${err?.stack ?? err}\n`);
    process.exitCode = 70;
  },
);
