// Where the openEHR data shipped with the package lives: `crossmaps/openehr/` (ITS-JSON schemas, templates).
import { fileURLToPath } from "node:url";

/** `crossmaps/openehr/` of this package, from both `src/` (tests) and `dist/` (installed). */
export const OPENEHR_DIR = fileURLToPath(new URL("../../../crossmaps/openehr/", import.meta.url));
