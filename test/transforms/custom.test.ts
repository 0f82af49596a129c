import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinTransforms } from "../../src/transforms/builtins.js";
import { loadTransformModule, simpleTransform } from "../../src/transforms/custom.js";
import { fail } from "../../src/transforms/types.js";
import { loadError, transformer } from "../helpers.js";

describe("custom transforms", () => {
  it("registers a factory whose config is bound once", () => {
    let created = 0;
    const registry = builtinTransforms().extend();
    registry.register("upper_prefix", {
      config: z.object({ prefix: z.string() }).strict(),
      create: (cfg) => {
        created++;
        return (v) =>
          typeof v === "string" ? cfg.prefix + v.toUpperCase() : fail("invalid_value", "not a string");
      },
    });
    const t = transformer("upper_prefix", { prefix: "X-" }, { transforms: registry });
    expect(t("ab").out).toBe("X-AB");
    expect(t("cd").out).toBe("X-CD");
    expect(created).toBe(1);
    expect(t(1).issues[0]).toMatchObject({ code: "invalid_value", message: "not a string" });
  });
  it("accepts the spec's (value, config, record, vocabulary) form", () => {
    const registry = builtinTransforms()
      .extend()
      .register(
        "join",
        simpleTransform((v, cfg, r) => `${v}${cfg.sep}${r.other}`),
      );
    expect(transformer("join", { sep: "/" }, { transforms: registry })("a", { other: "b" }).out).toBe("a/b");
  });
  it("turns a throwing transform into a transform_error issue and keeps mapping", () => {
    const registry = builtinTransforms()
      .extend()
      .register("boom", () => () => {
        throw new Error("kaput");
      });
    expect(transformer("boom", undefined, { transforms: registry })(1).issues[0]).toMatchObject({
      code: "transform_error",
      message: "transform failed: kaput",
    });
  });
  it("does not leak registrations into the built-ins", () => {
    builtinTransforms()
      .extend()
      .register("only_here", () => (v) => v);
    expect(builtinTransforms().has("only_here")).toBe(false);
    expect(
      loadError(
        "source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.a: {target: T.b, transform: only_here}\n",
      ),
    ).toContain('unknown transform "only_here"');
  });
  it("loads factories from a module path", async () => {
    const dir = mkdtempSync(join(tmpdir(), "xm-"));
    const file = join(dir, "t.mjs");
    writeFileSync(
      file,
      "export const transforms = { twice: (cfg) => (v) => v * (cfg.times ?? 2), half: { create: () => (v) => v / 2 } };\n",
    );
    const registry = builtinTransforms().extend();
    expect(await loadTransformModule(file, registry)).toEqual(["twice", "half"]);
    expect(transformer("twice", { times: 3 }, { transforms: registry })(5).out).toBe(15);
    await expect(loadTransformModule(join(dir, "none.mjs"), registry)).rejects.toThrow(
      /cannot load transforms module/,
    );
  });
});
