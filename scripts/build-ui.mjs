// Builds the review workbench page (src/ui/) into dist/ui: one ES module bundle with Preact, the stylesheet
// and index.html. Run by `npm run build`; the page then needs no network (no CDN, no fonts).
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist", "ui");
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(root, "src", "ui", "main.tsx")],
  outfile: join(out, "app.js"),
  bundle: true,
  format: "esm",
  minify: true,
  sourcemap: true,
  target: ["chrome111", "firefox115", "safari16.4"],
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "linked",
  logLevel: "warning",
});
copyFileSync(join(root, "src", "ui", "index.html"), join(out, "index.html"));
copyFileSync(join(root, "src", "ui", "app.css"), join(out, "app.css"));
