import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Integration tests spawn processes and open real ports and LMDB files; give them room on a 2-core CI box.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
