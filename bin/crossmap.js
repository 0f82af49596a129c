#!/usr/bin/env node
// Entry point for `npx crossmap`: runs the compiled CLI (built by `npm install` through the prepare script).
import module from "node:module";

// Node 22.1+ keeps the compiled code of the modules it loads in its temp-dir cache, which cuts the
// start-up of every later run (Node's documented advice for command-line tools); Node 20 lacks it.
module.enableCompileCache?.();

const { run } = await import("../dist/cli/main.js");

run(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`crossmap: internal error: ${err?.stack ?? err}\n`);
    process.exitCode = 70;
  },
);
