// `npm run bench [case...]`: runs the named benchmark cases (all when none is named). A new benchmark
// is a module exporting `run()`, added to `cases` below.
const cases: Record<string, () => Promise<{ run: () => Promise<void> }>> = {
  "map-throughput": () => import("./map-throughput.js"),
};

const wanted = process.argv.slice(2);
for (const name of wanted) {
  if (!(name in cases)) {
    process.stderr.write(`unknown benchmark "${name}"; known: ${Object.keys(cases).join(", ")}\n`);
    process.exit(2);
  }
}
for (const name of wanted.length > 0 ? wanted : Object.keys(cases)) {
  process.stderr.write(`== ${name}\n`);
  await (await cases[name]!()).run();
}
