import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Integration tests spawn processes and open real ports and LMDB files; give them room on a 2-core CI box
    // (and on a development box shared with other work: the longest test takes ~20 s alone).
    testTimeout: 90_000,
    hookTimeout: 120_000,
  },
});
