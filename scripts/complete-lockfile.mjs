// Adds lockfile entries for optional platform packages the registry mirror cannot serve (npm/cli#8320):
// npm ci insists on an entry for every optional dependency, even one it would skip on this platform.
// Run after any `npm install` that changes package-lock.json: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from "node:fs";

const lockPath = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, "utf8"));
const packages = lock.packages;
const guess = (name) => {
  const os = ["darwin", "linux", "win32", "android", "freebsd"].find((o) => name.includes(o));
  const cpu = ["arm64", "x64", "arm", "ia32"].find((c) => new RegExp(`-${c}(-|$)`).test(name));
  return { os, cpu };
};
let added = 0;
for (const [path, meta] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (packages[key]) continue;
    const { os, cpu } = guess(dep);
    const entry = { version, optional: true };
    if (meta.dev || path === "") entry.dev = meta.dev === true;
    if (!entry.dev) delete entry.dev;
    if (os) entry.os = [os];
    if (cpu) entry.cpu = [cpu];
    if (dep.endsWith("-musl")) entry.libc = ["musl"];
    packages[key] = entry;
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)));
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} optional platform entries`);
