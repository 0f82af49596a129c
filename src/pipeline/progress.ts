// Progress on a terminal: records, records/s and bytes read (of the total, when known), redrawn in place
// at most a few times a second. A no-op when disabled, so callers never branch on it.
export interface Progress {
  bytes(n: number): void;
  records(n: number): void;
  done(): void;
}

const silent: Progress = { bytes() {}, records() {}, done() {} };

export function createProgress(options: {
  enabled: boolean;
  totalBytes: number | undefined;
  stream: NodeJS.WriteStream;
  /** Appended to the line, e.g. batches done and workers seen in a NATS run. */
  note?: () => string;
}): Progress {
  if (!options.enabled) return silent;
  const { totalBytes, stream, note } = options;
  const started = performance.now();
  let bytesRead = 0;
  let recordCount = 0;
  let lastDraw = 0;
  const draw = (force: boolean) => {
    const now = performance.now();
    if (!force && now - lastDraw < 250) return;
    lastDraw = now;
    const seconds = (now - started) / 1000;
    const rate = seconds > 0 ? Math.round(recordCount / seconds) : 0;
    const read =
      totalBytes !== undefined && totalBytes > 0
        ? `${formatBytes(bytesRead)} of ${formatBytes(totalBytes)} (${Math.floor((bytesRead * 100) / totalBytes)}%)`
        : formatBytes(bytesRead);
    stream.write(
      `\r\x1b[K${recordCount.toLocaleString("en-US")} records  ${rate.toLocaleString("en-US")} records/s  ${read}${note ? `  ${note()}` : ""}`,
    );
  };
  return {
    bytes(n) {
      bytesRead += n;
      draw(false);
    },
    records(n) {
      recordCount += n;
      draw(false);
    },
    done() {
      draw(true);
      stream.write("\n");
    },
  };
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}
