import { describe, expect, it } from "vitest";
import {
  compileUnescape,
  DEFAULT_DELIMITERS,
  readDelimiters,
} from "../../../src/pipeline/hl7v2/delimiters.js";

describe("readDelimiters", () => {
  it("reads MSH-1 and the four encoding characters of MSH-2", () => {
    expect(readDelimiters("MSH|^~\\&|APP")).toEqual(DEFAULT_DELIMITERS);
  });
  it("reads the five-character form with the truncation character", () => {
    expect(readDelimiters("MSH|^~\\&#|APP")).toEqual({ ...DEFAULT_DELIMITERS, truncation: "#" });
  });
  it("reads any other delimiter set the sender chose", () => {
    expect(readDelimiters("MSH*:!/%*APP")).toEqual({
      field: "*",
      component: ":",
      repetition: "!",
      escape: "/",
      subcomponent: "%",
    });
  });
  it("reads MSH-2 at the end of a segment with no further fields", () => {
    expect(readDelimiters("MSH|^~\\&")).toEqual(DEFAULT_DELIMITERS);
  });
  it("explains why a header cannot give delimiters", () => {
    expect(readDelimiters("MSH")).toBe("header segment has no field separator (MSH-1)");
    expect(readDelimiters("MSH|^~|APP")).toBe(
      'encoding characters (MSH-2) "^~" must be 4 or 5 characters, e.g. ^~\\&',
    );
    expect(readDelimiters("MSH|^~\\^|APP")).toBe(
      'delimiters "|^~\\^" must be distinct and not letters, digits or spaces',
    );
    expect(readDelimiters("MSH|ABCD|APP")).toBe(
      'delimiters "|ABCD" must be distinct and not letters, digits or spaces',
    );
  });
});

describe("unescaping", () => {
  const un = compileUnescape({ ...DEFAULT_DELIMITERS, truncation: "#" });
  it("gives back each delimiter", () => {
    expect(un("a\\F\\b")).toBe("a|b");
    expect(un("a\\S\\b")).toBe("a^b");
    expect(un("a\\T\\b")).toBe("a&b");
    expect(un("a\\R\\b")).toBe("a~b");
    expect(un("a\\E\\b")).toBe("a\\b");
    expect(un("a\\P\\b")).toBe("a#b");
  });
  it("turns \\.br\\ and \\.sp\\ into line breaks", () => {
    expect(un("line 1\\.br\\line 2\\.sp\\line 3")).toBe("line 1\nline 2\nline 3");
  });
  it("decodes \\Xhh\\ as UTF-8 when valid, else Latin-1", () => {
    expect(un("\\X41\\\\X4243\\")).toBe("ABC");
    expect(un("caf\\XC3A9\\")).toBe("café");
    expect(un("caf\\XE9\\")).toBe("café");
  });
  it("drops formatting, highlighting and character-set switches", () => {
    expect(un("\\H\\bold\\N\\ \\.in+4\\x\\.ce\\y\\C2842\\z\\Zlocal\\")).toBe("bold xyz");
  });
  it("keeps unknown and unterminated sequences as written", () => {
    expect(un("a\\Q\\b\\F\\c")).toBe("a\\Q\\b|c");
    expect(un("C:\\temp")).toBe("C:\\temp");
    expect(un("\\X4\\")).toBe("\\X4\\");
  });
  it("uses the message's own delimiters", () => {
    const custom = compileUnescape({
      field: "*",
      component: ":",
      repetition: "!",
      escape: "/",
      subcomponent: "%",
    });
    expect(custom("a/F/b/S/c/T/d/R/e/E/f/.br/g")).toBe("a*b:c%d!e/f\ng");
    expect(custom("a\\F\\b")).toBe("a\\F\\b");
    expect(custom("/P/")).toBe("");
  });
});
