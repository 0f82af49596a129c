// zod issues worded as pydantic words them, located under body or query.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toProblem } from "../../src/server/validate.js";

const problems = (schema: z.ZodType, input: unknown) => {
  const r = schema.safeParse(input, { reportInput: true });
  if (r.success) throw new Error("expected a failure");
  return r.error.issues.map((i) => toProblem(i, "body"));
};

describe("toProblem", () => {
  it("words missing, null and wrong types", () => {
    const s = z.object({
      a: z.string(),
      b: z.string(),
      c: z.boolean(),
      d: z.object({ e: z.array(z.number()) }),
    });
    expect(problems(s, { b: null, c: "yes", d: { e: [1, "2"] } })).toEqual([
      { path: ["body", "a"], message: "field required", code: "value_error.missing" },
      { path: ["body", "b"], message: "none is not an allowed value", code: "type_error.none.not_allowed" },
      { path: ["body", "c"], message: "value is not a valid boolean", code: "type_error.bool" },
      { path: ["body", "d", "e", 1], message: "value is not a valid float", code: "type_error.float" },
    ]);
  });

  it("words bounds of strings, arrays and numbers", () => {
    const s = z.object({
      s: z.string().max(2),
      a: z.array(z.string()).min(1),
      n: z.number().gt(0),
      m: z.number().lt(5),
    });
    expect(problems(s, { s: "abc", a: [], n: 0, m: 5 }).map((p) => [p.message, p.code])).toEqual([
      ["ensure this value has at most 2 characters", "value_error.any_str.max_length"],
      ["ensure this value has at least 1 items", "value_error.list.min_items"],
      ["ensure this value is greater than 0", "value_error.number.not_gt"],
      ["ensure this value is less than 5", "value_error.number.not_lt"],
    ]);
  });
});
