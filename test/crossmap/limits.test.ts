// Issue 13 (F2-F4): a crossmap document's cost is bounded, and every limit is a located load error.
import { describe, expect, it } from "vitest";
import { parseCrossmap } from "../../src/crossmap/load.js";
import { MAX_TARGET_INDEX } from "../../src/crossmap/paths.js";
import { MAX_PROBLEMS } from "../../src/crossmap/problems.js";
import { DOCUMENT_LIMITS } from "../../src/crossmap/yaml-read.js";
import { AppError } from "../../src/errors.js";

const head = "source: s\ntarget: t\nentity_map: {e: T}\n";

function loadError(text: string, limits = {}): AppError {
  try {
    parseCrossmap(text, { file: "x.yaml", limits });
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("loaded");
}
const describeError = (text: string, limits = {}) => loadError(text, limits).describe();

describe("document limits", () => {
  it("an alias bomb is refused where it expands past the node limit, before anything expands it", () => {
    let bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (let i = 1; i < 12; i++)
      bomb += `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(", ")}]\n`;
    const e = loadError(`${head}field_map: {}\nmetadata:\n${bomb.replace(/^/gm, "  ")}`);
    expect(e.status).toBe(422);
    expect(e.describe()).toBe(
      "crossmap x.yaml is invalid (1 problem)\n  x.yaml:11:27: the document expands to more than 500,000 nodes (the limit; an alias counts as the nodes it repeats)",
    );
    expect(e.problems[0]?.code).toBe("too_many_nodes");
  });

  it("a chain of merge keys (YAML 1.1) counts what yaml does to merge each one", () => {
    const chain = (n: number) => {
      let text = "%YAML 1.1\n---\nsource: s\ntarget: t\nentity_map: {e: T}\nfield_map: {}\nmetadata:\n";
      text += "  m0: &m0 {k: 1}\n";
      for (let i = 1; i < n; i++) text += `  m${i}: &m${i} {<<: *m${i - 1}, k${i}: ${i}}\n`;
      return text;
    };
    expect(describeError(chain(400))).toBe(
      "crossmap x.yaml is invalid (1 problem)\n  x.yaml:98:18: the document expands to more than 500,000 nodes (the limit; an alias counts as the nodes it repeats)",
    );
    // A shorter chain loads, merged.
    const cm = parseCrossmap(chain(30));
    expect((cm.document.metadata as Record<string, Record<string, number>>).m29).toMatchObject({
      k: 1,
      k29: 29,
    });
  });

  it("too many aliases, and an alias inside the node it names", () => {
    const many = Array.from({ length: 5 }, () => "*a").join(", ");
    expect(describeError(`${head}field_map: {}\nmetadata: {x: &a 1, y: [${many}]}\n`, { aliases: 3 })).toBe(
      "crossmap x.yaml is invalid (1 problem)\n  x.yaml:5:37: more than 3 aliases (the limit)",
    );
    expect(describeError(`${head}field_map: {}\nmetadata: &a {x: *a}\n`)).toBe(
      "crossmap x.yaml is invalid (1 problem)\n  x.yaml:5:18: alias *a refers to a node that contains it",
    );
  });

  it("nesting deeper than the limit, in block and flow style, even past what yaml's parser can recurse", () => {
    const deepFlow = `${head}field_map: {}\nmetadata: ${"[".repeat(100)}${"]".repeat(100)}\n`;
    expect(describeError(deepFlow)).toBe(
      "crossmap x.yaml is invalid (1 problem)\n  x.yaml:5:74: nested more than 64 levels deep (the limit)",
    );
    // 100 levels: found in yaml's tokens; 2,500 levels: yaml's parser overflows the stack first.
    for (const levels of [100, 2500]) {
      let deepBlock = `${head}field_map: {}\nmetadata:\n`;
      for (let i = 1; i <= levels; i++) deepBlock += `${" ".repeat(i)}a:\n`;
      expect(describeError(deepBlock)).toBe(
        "crossmap x.yaml is invalid (1 problem)\n  x.yaml:69:65: nested more than 64 levels deep (the limit)",
      );
    }
    expect(DOCUMENT_LIMITS.depth).toBe(64);
  });

  it("a document over the size limit is refused before it is parsed", () => {
    expect(describeError(`${head}field_map: {}\n# ${"é".repeat(600)}\n`, { bytes: 1000 })).toBe(
      "crossmap x.yaml is invalid (1 problem)\n  x.yaml:1:1: the document is 1,256 bytes; the limit is 1,000",
    );
  });

  it("duplicate keys are still found, in block and flow mappings, in text order", () => {
    expect(describeError(`${head}field_map: {e.a: {target: T.a}, e.a: {target: T.b}}\nsource: s\n`)).toBe(
      "crossmap x.yaml is invalid (2 problems)\n  x.yaml:4:33: Map keys must be unique\n  x.yaml:5:1: Map keys must be unique",
    );
  });

  it("a target array index over the limit is a located load error (F2: Patient.id[99999999])", () => {
    expect(describeError(`${head}field_map:\n  e.a: {target: "T.id[99999999]"}\n`)).toBe(
      'crossmap x.yaml is invalid (1 problem)\n  x.yaml:5:17: field_map["e.a"].target: path "T.id[99999999]": index 99999999 is over the limit of 1000',
    );
    const plus = Array.from({ length: MAX_TARGET_INDEX + 2 }, (_, i) => `  e.f${i}: {target: "T.x[+]"}\n`);
    const e = loadError(`${head}field_map:\n${plus.join("")}`);
    expect(e.problems.map((p) => p.message)).toEqual(['path "T.x[+]": index 1001 is over the limit of 1000']);
    expect(() => parseCrossmap(`${head}field_map:\n  e.a: {target: "T.id[1000]"}\n`)).not.toThrow();
  });

  it("lists the first problems of a document full of them, and counts the rest", () => {
    const lines = Array.from(
      { length: MAX_PROBLEMS + 5 },
      (_, i) => `  e.f${i}: {target: T.x${i}, transform: nope}\n`,
    );
    const e = loadError(`${head}field_map:\n${lines.join("")}`);
    expect(e.message).toBe("crossmap x.yaml is invalid (1005 problems; the first 1000 are listed)");
    expect(e.problems).toHaveLength(MAX_PROBLEMS);
  });
});
