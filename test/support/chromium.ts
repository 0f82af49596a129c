// The headless chromium the workbench's browser tests drive: Debian's chromium (or CHROMIUM=path), launched
// once per test file with the flags that keep it quiet and offline in a sandbox-less container.
import { type Browser, chromium } from "playwright-core";
import { findTool } from "./tools.js";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: findTool("chromium"),
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
