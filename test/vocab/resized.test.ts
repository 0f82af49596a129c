// Growing typed-array columns.
import { describe, expect, it } from "vitest";
import { resized } from "../../src/vocab/resized.js";

describe("resized", () => {
  it("keeps the rows and the element type, with zeros after them", () => {
    const grown = resized(Uint16Array.from([1, 2, 65535]), 5);
    expect(grown).toBeInstanceOf(Uint16Array);
    expect([...grown]).toEqual([1, 2, 65535, 0, 0]);
    expect([...resized(Uint32Array.from([7, 0xffff_ffff]), 2)]).toEqual([7, 0xffff_ffff]);
  });

  it("keeps as many rows as fit when asked for fewer", () => {
    expect([...resized(Uint8Array.from([1, 2, 3]), 2)]).toEqual([1, 2]);
  });
});
