// Worker-thread entry of the relationship pass (see relationship-pass.ts): runs it, reports progress and
// the result (or the error, with its AppError fields) to the building thread.
import { parentPort, workerData } from "node:worker_threads";
import { isAppError } from "../errors.js";
import { type RelationshipPassInput, relationshipPass } from "./relationship-pass.js";

const port = parentPort!;
let last = 0;
relationshipPass(workerData as RelationshipPassInput, (bytesRead, totalBytes) => {
  const now = Date.now();
  if (now - last >= 100 || bytesRead === totalBytes) {
    last = now;
    port.postMessage({ type: "progress", bytesRead, totalBytes });
  }
}).then(
  (result) => port.postMessage({ type: "done", result }),
  (err: unknown) =>
    port.postMessage({
      type: "error",
      error: isAppError(err)
        ? { status: err.status, code: err.code, message: err.message, problems: err.problems }
        : { message: err instanceof Error ? (err.stack ?? err.message) : String(err) },
    }),
);
