// Part of `npm run build`, after tsc: bundles the command line (dist/cli/main.js and every module it imports,
// own code only) into dist/bundle/, which bin/crossmap.js runs. Loading ~85 small ES modules one by one was
// the largest part of `crossmap map`'s start-up on Node 20 (each is resolved, read, compiled and linked on
// its own); the bundle is a few files. Code split at the dynamic imports, so a command still loads only
// what it needs (`map` does not load the server, the stores, zod or the YAML parser).
//
// The bundle behaves as the files it came from:
// - each module's `import.meta.url` is its original file's URL under dist/, so the paths it builds from it
//   (package.json, crossmaps/, dist/crossmaps.json, worker scripts) are the same;
// - modules whose classes cross the library boundary (errors.js's AppError, transforms/types.js's
//   Unmappable, which a --transforms module gets from `import ... from "crossmap"`, i.e. dist/index.js) are
//   imported from dist/ rather than copied, so `instanceof` holds between the two;
// - packages in node_modules stay imports, but for commander (below);
// - version.js is the package's version, written in (it read package.json at every start);
// - commander's node:child_process (for subcommands that are executables, which crossmap has none of) is
//   loaded on first use, not at every start.
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const out = join(dist, "bundle");
const shared = new Set([join(dist, "errors.js"), join(dist, "transforms", "types.js")]);
const fromOut = (file) => relative(out, file).split(sep).join("/");

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** Every dependency of package.json but `bundled`, as esbuild externals. */
function packagesBut(bundled) {
  const names = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((n) => !bundled.includes(n));
  return names.flatMap((n) => [n, `${n}/*`]);
}

const result = await build({
  metafile: true,
  entryPoints: { main: join(dist, "cli", "main.js") },
  outdir: out,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Packages stay imports, but for commander, which every command loads: bundled, it is no longer one
  // CommonJS module read through the ESM loader's CommonJS translator.
  external: packagesBut(["commander"]),
  // commander's require() of Node's own modules.
  banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
  logLevel: "warning",
  plugins: [
    {
      name: "dist-identity",
      setup(b) {
        b.onResolve({ filter: /^\.\.?\// }, (args) => {
          const file = join(args.resolveDir, args.path);
          return shared.has(file) && args.importer !== "" ? { path: fromOut(file), external: true } : undefined;
        });
        b.onResolve({ filter: /^node:child_process$/ }, (args) =>
          args.importer.includes(`${sep}commander${sep}`) ? { path: "node:child_process", namespace: "lazy" } : undefined,
        );
        b.onLoad({ filter: /.*/, namespace: "lazy" }, (args) => ({
          contents: `module.exports = new Proxy({}, { get: (_, key) => process.getBuiltinModule(${JSON.stringify(args.path)})[key] });`,
          loader: "js",
        }));
        b.onLoad({ filter: /\.js$/ }, (args) => {
          if (args.path === join(dist, "version.js")) {
            return { contents: `export const version = ${JSON.stringify(pkg.version)};`, loader: "js" };
          }
          if (!args.path.startsWith(dist + sep)) return undefined;
          const text = readFileSync(args.path, "utf8");
          const url = `new URL(${JSON.stringify(fromOut(args.path))}, import.meta.url).href`;
          return { contents: text.replaceAll("import.meta.url", url), loader: "js" };
        });
      },
    },
  ],
});

// The previous builds' files are left for an hour: a process started before this build (a `crossmap serve`)
// may still import one of its chunks, whose names change with their content.
const made = new Set(Object.keys(result.metafile.outputs).map((f) => basename(f)));
for (const file of readdirSync(out)) {
  const path = join(out, file);
  if (!made.has(file) && statSync(path).mtimeMs < Date.now() - 3600_000) rmSync(path, { force: true });
}
