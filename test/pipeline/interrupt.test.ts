import { afterEach, describe, expect, it } from "vitest";
import { catchInterrupt, type Interrupt, signalExitCode } from "../../src/pipeline/interrupt.js";

let interrupt: Interrupt | undefined;
afterEach(() => interrupt?.dispose());

describe("catchInterrupt", () => {
  it("stops the run cleanly on SIGHUP (a closed terminal, a dropped ssh session) as on SIGINT and SIGTERM", async () => {
    interrupt = catchInterrupt();
    process.emit("SIGHUP", "SIGHUP");
    expect(interrupt.signal).toBe("SIGHUP");
    expect(await interrupt.wait).toBe("SIGHUP");
  });

  it("exits 128 + the signal's number", () => {
    expect(signalExitCode("SIGINT")).toBe(130);
    expect(signalExitCode("SIGHUP")).toBe(129);
    expect(signalExitCode("SIGTERM")).toBe(143);
  });
});
