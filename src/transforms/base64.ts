// base64: text to base64 and back (FHIR Attachment.data holds base64), as UTF-8. Decoding rejects anything
// that is not canonical base64 rather than returning the garbage Buffer.from makes of it.
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { describeValue } from "./describe.js";
import { fail, type TransformDefinition } from "./types.js";

const config = lazySchema((z) => z.object({ decode: z.boolean().optional() }).strict());

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const base64: TransformDefinition<ConfigOf<typeof config>> = {
  get config() {
    return config();
  },
  description: "Text as base64 (UTF-8); with decode: true, base64 back to text.",
  create: (cfg) =>
    cfg.decode
      ? (v) => {
          if (typeof v !== "string" || !BASE64.test(v))
            return fail("invalid_value", `${describeValue(v)} is not base64`);
          const text = Buffer.from(v, "base64").toString("utf8");
          return Buffer.from(text, "utf8").toString("base64") === v
            ? text
            : fail("invalid_value", "the base64 data is not UTF-8 text");
        }
      : (v) =>
          typeof v === "string"
            ? Buffer.from(v, "utf8").toString("base64")
            : fail("invalid_value", `${describeValue(v)} is not text`),
};
