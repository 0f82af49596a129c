// Preloaded (node --import) into each timed process: on exit, writes the process's peak RSS in KB and
// its CPU time in microseconds (all threads included) to the file named by CROSSMAP_BENCH_RSS_FILE.
import { writeFileSync } from "node:fs";

const target = process.env.CROSSMAP_BENCH_RSS_FILE;
if (target) {
  process.on("exit", () => {
    const usage = process.resourceUsage();
    writeFileSync(
      target,
      JSON.stringify({ maxRSS: usage.maxRSS, cpu: usage.userCPUTime + usage.systemCPUTime }),
    );
  });
}
