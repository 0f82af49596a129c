import { describe, expect, it } from "vitest";
import { AppError, formatKeyPath, formatProblem } from "../src/errors.js";

describe("formatProblem", () => {
  it("renders file, line, column, key path and message like a compiler", () => {
    expect(
      formatProblem({
        file: "crossmaps/x.yaml",
        line: 12,
        column: 16,
        path: ["field_map", "person.gender_concept_id", "transform"],
        message: 'unknown transform "nope"',
        code: "unknown_transform",
      }),
    ).toBe(
      'crossmaps/x.yaml:12:16: field_map["person.gender_concept_id"].transform: unknown transform "nope"',
    );
  });

  it("leaves out what it does not know", () => {
    expect(formatProblem({ path: [], message: "bad", code: "x" })).toBe("bad");
    expect(formatKeyPath(["items", 3, "id"])).toBe("items[3].id");
  });

  it("describes an AppError with one problem per line", () => {
    const e = new AppError(422, "invalid", "crossmap is invalid", [{ path: ["a"], message: "m", code: "c" }]);
    expect(e.describe()).toBe("crossmap is invalid\n  a: m");
  });
});
