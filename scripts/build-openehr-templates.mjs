// Rebuilds crossmaps/openehr/templates/*.opt from the template specs and the CKM archetypes beside them.
// Run after `npm run build`: node scripts/build-openehr-templates.mjs
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildTemplateFiles } from "../dist/openehr/template/files.js";

const dir = fileURLToPath(new URL("../crossmaps/openehr/", import.meta.url));
for (const t of buildTemplateFiles(dir)) {
  writeFileSync(join(dir, "templates", t.file), t.xml);
  process.stdout.write(`${t.file}: ${t.templateId} (${(t.xml.length / 1024).toFixed(0)} KiB)\n`);
}
