import { defineConfig } from "vitest/config";

// Integration tests spawn processes and open real ports and LMDB files; give them room on a 2-core CI box
// (and on a development box shared with other work: the longest test takes ~20 s alone).
const timeouts = { testTimeout: 90_000, hookTimeout: 120_000 };
// Records the tests skipped because a system tool (chromium, nats-server) is missing and lists them in the
// run's closing lines; CROSSMAP_REQUIRE_TOOLS=1 turns such a skip into a failed run (.ci/run). In both
// projects: it also refuses an unknown name in CROSSMAP_HIDE_TOOLS, whichever files a run selects.
// temp-root.ts first: the run's temporary files (the skips' folder too) go into one folder removed at its end.
const globalSetup = ["./test/support/temp-root.ts", "./test/support/tool-skips.ts"];

export default defineConfig({
  test: {
    // Two files at once on 2 cores (vitest's default is one fewer than the cores): most integration files
    // spend their time waiting on child processes, servers and ports, so one file at a time left a core idle
    // and the suite took 13 min on CI instead of the 10 we keep it under.
    maxWorkers: 2,
    projects: [
      {
        // Unit tests (no process, port or file of their own outside a temp dir) share their workers' module
        // graph instead of importing it again for every file: importing was two thirds of their time (these
        // 133 files on their own took 170 s isolated, 74 s not, same machine, back to back). A unit test
        // must therefore leave module state as it found it (e.g. restore a tuning object it lowers).
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: ["test/**/*.int.test.ts", "test/**/*.e2e.test.ts"],
          isolate: false,
          globalSetup,
          ...timeouts,
        },
      },
      {
        test: {
          name: "integration",
          include: ["test/**/*.int.test.ts", "test/**/*.e2e.test.ts"],
          globalSetup,
          ...timeouts,
        },
      },
    ],
  },
});
