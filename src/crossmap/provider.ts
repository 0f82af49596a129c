// Hands out compiled crossmaps: built-ins compiled once per process (per vocabulary), and documents sent
// as YAML text compiled on demand with a small cache keyed by the text, so repeated requests with the same
// custom crossmap do not recompile. Never reads a path named by a caller.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { AppError } from "../errors.js";
import { builtinTransforms } from "../transforms/builtins.js";
import { OverlaySlot } from "../transforms/overlay.js";
import type { TransformRegistry } from "../transforms/registry.js";
import type { VocabularyBridge } from "../vocab/bridge.js";
import { type CatalogEntry, listBuiltinCrossmaps } from "./catalog.js";
import type { Crossmap } from "./crossmap.js";
import { parseCrossmap } from "./load.js";

export interface ProvidedCrossmap {
  crossmap: Crossmap;
  /** The built-in file name, or null for a document sent by the caller. */
  file: string | null;
}

export interface ProviderOptions {
  vocabulary?: VocabularyBridge;
  transforms?: TransformRegistry;
  /** How many distinct caller-supplied documents stay compiled. */
  textCacheSize?: number;
  /** Where built-ins live (tests); default the package's crossmaps/. */
  builtinDir?: string;
}

export class CrossmapProvider {
  private readonly builtins = new Map<string, ProvidedCrossmap>();
  private readonly texts = new Map<string, Crossmap>();
  private readonly catalog: CatalogEntry[];

  constructor(private readonly options: ProviderOptions = {}) {
    this.catalog = options.builtinDir ? listBuiltinCrossmaps(options.builtinDir) : listBuiltinCrossmaps();
  }

  /** The vocabulary the crossmaps are compiled with, if any. */
  get vocabulary(): VocabularyBridge | undefined {
    return this.options.vocabulary;
  }

  list(): CatalogEntry[] {
    return this.catalog;
  }

  /**
   * The built-in crossmap for a pair, compiled on first use (per set of parameter values); 404 naming both
   * standards when there is none.
   */
  builtin(source: string, target: string, parameters?: Readonly<Record<string, string>>): ProvidedCrossmap {
    const key = `${source}\0${target}\0${paramKey(parameters)}`;
    const cached = this.builtins.get(key);
    if (cached) return cached;
    const entry = this.catalog.find((e) => e.source === source && e.target === target);
    if (!entry) {
      const pairs = this.catalog.map((e) => `${e.source} -> ${e.target}`).join(", ");
      throw new AppError(404, "unknown_pair", `No crossmap from ${source} to ${target}. Available: ${pairs}`);
    }
    const crossmap = parseCrossmap(readFileSync(entry.path, "utf8"), {
      ...this.loadOptions(parameters),
      file: entry.file,
    });
    checkParameters(crossmap, parameters);
    const provided = { crossmap, file: entry.file };
    // Parameter values come from callers: keep a bounded number of compiled variants besides the defaults.
    if (parameters && this.builtins.size >= 64 + this.catalog.length)
      this.builtins.delete(this.builtins.keys().next().value as string);
    this.builtins.set(key, provided);
    return provided;
  }

  /** A caller-supplied YAML document; load problems are a 422 AppError located in that document. */
  fromText(text: string, name = "crossmap", parameters?: Readonly<Record<string, string>>): ProvidedCrossmap {
    const key = createHash("sha256").update(text).update("\0").update(paramKey(parameters)).digest("hex");
    let crossmap = this.texts.get(key);
    if (!crossmap) {
      crossmap = parseCrossmap(text, { ...this.loadOptions(parameters), file: name });
      checkParameters(crossmap, parameters);
      const limit = this.options.textCacheSize ?? 32;
      if (this.texts.size >= limit) this.texts.delete(this.texts.keys().next().value as string);
      this.texts.set(key, crossmap);
    }
    return { crossmap, file: null };
  }

  // Every crossmap served gets an overlay slot: project-scoped calls apply their project's decisions
  // through it (Crossmap.withOverlay), stateless calls leave it empty.
  private loadOptions(parameters?: Readonly<Record<string, string>>) {
    return {
      transforms: this.options.transforms ?? builtinTransforms(),
      ...(this.options.vocabulary ? { vocabulary: this.options.vocabulary } : {}),
      ...(parameters ? { parameters } : {}),
      overlay: new OverlaySlot(),
    };
  }
}

const paramKey = (p: Readonly<Record<string, string>> | undefined): string =>
  p ? JSON.stringify(Object.entries(p).sort(([a], [b]) => (a < b ? -1 : 1))) : "";

/** Given parameters are declared, and every declared one without a default is given: else a 422 on `parameters`. */
function checkParameters(crossmap: Crossmap, given: Readonly<Record<string, string>> = {}): void {
  const declared = crossmap.document.parameters ?? {};
  const problems = [
    ...Object.keys(given)
      .filter((k) => !(k in declared))
      .map((k) => ({
        path: ["parameters", k],
        code: "unknown_parameter",
        message: `the crossmap has no parameter "${k}"`,
      })),
    ...Object.entries(declared)
      .filter(([k, p]) => p.default === undefined && given[k] === undefined)
      .map(([k]) => ({
        path: ["parameters", k],
        code: "missing",
        message: `parameter "${k}" has no default and must be given`,
      })),
  ];
  if (problems.length > 0) throw new AppError(422, "invalid_parameters", "invalid parameters", problems);
}
