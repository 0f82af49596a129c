// Preloaded (node --import) into each timed process: on exit, writes the process's peak RSS in KB
// (all threads included) to the file named by CROSSMAP_BENCH_RSS_FILE.
import { writeFileSync } from "node:fs";

const target = process.env.CROSSMAP_BENCH_RSS_FILE;
if (target) {
  process.on("exit", () => {
    writeFileSync(target, String(process.resourceUsage().maxRSS));
  });
}
