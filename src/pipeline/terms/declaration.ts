// Where a standard's records hold source terms (codes, their code systems and descriptions), as data:
// crossmaps/standards/source-terms/<standard>.yaml, or a user's file of the same form. Validated once;
// every problem names the file and the entry.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { readBuiltinYaml } from "../../crossmap/builtin-data.js";
import { BUILTIN_DIR, parseYaml } from "../../crossmap/catalog.js";
import { AppError } from "../../errors.js";

const path = z.string().regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, {
  error: "must be a dotted path of field names, e.g. code.coding or 3",
});

const entrySchema = z
  .object({
    entity: z.string().min(1),
    at: path.optional(),
    codings: path.optional(),
    code: path.optional(),
    system: path.optional(),
    system_value: z.string().min(1).optional(),
    description: path.optional(),
    text: path.optional(),
    source_concept: path.optional(),
    domains: z.array(z.string().min(1)).optional(),
    when: z
      .object({ field: path, in: z.array(z.string()).min(1) })
      .strict()
      .optional(),
    field: z.string().min(1).optional(),
  })
  .strict()
  .refine((e) => e.code !== undefined || e.description !== undefined || e.text !== undefined, {
    error: "needs at least one of code, description or text",
  });

const declarationSchema = z
  .object({ standard: z.string().min(1), terms: z.array(entrySchema).min(1) })
  .strict();

export type TermEntry = z.infer<typeof entrySchema>;
export interface TermDeclaration {
  standard: string;
  terms: TermEntry[];
  /** Where it was read from, for messages. */
  file: string;
}

export const SOURCE_TERMS_DIR = join(BUILTIN_DIR, "standards", "source-terms");

/** The built-in declaration of a standard, or a user's file. */
export function loadTermDeclaration(standard: string, file?: string): TermDeclaration {
  const where = file ?? join(SOURCE_TERMS_DIR, `${standard}.yaml`);
  let doc: unknown;
  try {
    doc = file ? parseYaml(readFileSync(file, "utf8")) : readBuiltinYaml(where);
  } catch (err) {
    if (err instanceof AppError) throw err;
    const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
    throw new AppError(
      400,
      "unknown_standard",
      missing && !file
        ? `no source terms are declared for ${standard} (crossmaps/standards/source-terms/${standard}.yaml); give --terms FILE`
        : `cannot read ${where}: ${(err as Error).message}`,
    );
  }
  const parsed = declarationSchema.safeParse(doc);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`);
    throw new AppError(422, "bad_source_terms", `${where}: ${problems.join("; ")}`);
  }
  if (file === undefined && parsed.data.standard !== standard) {
    throw new AppError(
      422,
      "bad_source_terms",
      `${where}: declares standard ${parsed.data.standard}, not ${standard}`,
    );
  }
  return { ...parsed.data, file: where };
}

/** The field label a term from this entry carries: `OBX.3`, `Condition.code`, `measurement.unit_source_value`. */
export const fieldLabel = (e: TermEntry): string =>
  e.field ?? `${e.entity}.${e.at ?? e.code ?? e.description ?? e.text}`;
