import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Records the tests skipped because a system tool (chromium, nats-server) is missing and lists them in
    // the run's closing lines; CROSSMAP_REQUIRE_TOOLS=1 turns such a skip into a failed run (.ci/run).
    globalSetup: ["./test/support/tool-skips.ts"],
    // Integration tests spawn processes and open real ports and LMDB files; give them room on a 2-core CI box
    // (and on a development box shared with other work: the longest test takes ~20 s alone).
    testTimeout: 90_000,
    // Two files at once on 2 cores (vitest's default is one fewer than the cores): most integration files
    // spend their time waiting on child processes, servers and ports, so one file at a time left a core idle
    // and the suite took 13 min on CI instead of the 10 we keep it under.
    maxWorkers: 2,
    hookTimeout: 120_000,
  },
});
