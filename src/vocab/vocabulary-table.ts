// Reads VOCABULARY.csv (a few hundred rows at most) for the index metadata: name and version per vocabulary.
import { detectForm, readTable } from "./athena-files.js";

export async function readVocabularyTable(
  file: string,
): Promise<Map<string, { name: string; version: string }>> {
  const out = new Map<string, { name: string; version: string }>();
  await readTable(file, detectForm(file), {
    header(columns) {
      const id = columns.indexOf("vocabulary_id");
      const name = columns.indexOf("vocabulary_name");
      const version = columns.indexOf("vocabulary_version");
      return (fields) => {
        // Metadata only: a short or odd row is ignored rather than failing the build.
        const key = fields[id];
        if (id >= 0 && key) out.set(key, { name: fields[name] ?? "", version: fields[version] ?? "" });
      };
    },
    parseError: () => {},
  });
  return out;
}
