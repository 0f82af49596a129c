// date_from_parts and base64.
import { describe, expect, it } from "vitest";
import { codes, transformer } from "../helpers.js";

describe("date_from_parts", () => {
  const t = transformer("date_from_parts", { month_field: "m", day_field: "d" });
  it("is as precise as the parts present", () => {
    expect(t("1998", { m: "4", d: "9" }).out).toBe("1998-04-09");
    expect(t("1998", { m: "4" }).out).toBe("1998-04");
    expect(t(1998).out).toBe("1998");
  });
  it("refuses an impossible date", () => {
    expect(t("2001", { m: "2", d: "29" }).issues.map((i) => i.message)).toEqual([
      'day "29" of 2001-02 is not a date',
    ]);
    expect(codes(t("1998", { m: "13" }))).toEqual(["invalid_date"]);
  });
});

describe("base64", () => {
  it("encodes UTF-8 text and decodes it back", () => {
    expect(transformer("base64")("Grüße").out).toBe("R3LDvMOfZQ==");
    expect(transformer("base64", { decode: true })("R3LDvMOfZQ==").out).toBe("Grüße");
  });
  it("refuses what is not base64", () => {
    expect(codes(transformer("base64", { decode: true })("not base64!"))).toEqual(["invalid_value"]);
  });
});
