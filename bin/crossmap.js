#!/usr/bin/env node
// Entry point for `npx crossmap`: runs the compiled CLI (built by `npm install` through the prepare script).
import { run } from "../dist/cli/main.js";

run(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`crossmap: internal error: ${err?.stack ?? err}\n`);
    process.exitCode = 70;
  },
);
