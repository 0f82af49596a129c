// Binary "run" files for the external sort that keeps a build's memory bounded: sorted chunks are written
// to disk, then merged in key order. Plain synchronous I/O with big buffers: the build is one sequential job.
import { closeSync, openSync, readSync, writeSync } from "node:fs";

// Writers flush in big blocks; readers use smaller ones because a merge holds one per run (dozens).
const WRITE_BLOCK = 4 << 20;
const READ_BLOCK = 1 << 20;

export class RunWriter {
  private readonly fd: number;
  private buf = Buffer.allocUnsafe(WRITE_BLOCK);
  private at = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, "w");
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    this.flush();
    if (n > this.buf.length) this.buf = Buffer.allocUnsafe(n);
  }

  u32(v: number): void {
    this.room(4);
    this.at = this.buf.writeUInt32LE(v, this.at);
  }

  /** Length-prefixed UTF-8 string, encoded straight into the buffer. */
  str(s: string): void {
    this.room(4 + s.length * 3); // UTF-8 needs at most 3 bytes per UTF-16 unit
    const n = this.buf.write(s, this.at + 4, "utf8");
    this.buf.writeUInt32LE(n, this.at);
    this.at += 4 + n;
  }

  private flush(): void {
    if (this.at > 0) writeSync(this.fd, this.buf, 0, this.at);
    this.at = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

export class RunReader {
  private readonly fd: number;
  private buf = Buffer.allocUnsafe(READ_BLOCK);
  private start = 0;
  private end = 0;
  private eof = false;

  constructor(readonly path: string) {
    this.fd = openSync(path, "r");
  }

  /** True when at least `n` more bytes can be read; refills the buffer as needed. */
  has(n: number): boolean {
    if (this.end - this.start >= n) return true;
    if (this.eof) return false;
    const rest = this.end - this.start;
    if (n > this.buf.length) {
      const bigger = Buffer.allocUnsafe(n * 2);
      this.buf.copy(bigger, 0, this.start, this.end);
      this.buf = bigger;
    } else {
      this.buf.copy(this.buf, 0, this.start, this.end);
    }
    this.start = 0;
    this.end = rest;
    while (this.end < this.buf.length) {
      const got = readSync(this.fd, this.buf, this.end, this.buf.length - this.end, null);
      if (got === 0) {
        this.eof = true;
        break;
      }
      this.end += got;
    }
    return this.end - this.start >= n;
  }

  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32LE(this.start);
    this.start += 4;
    return v;
  }

  u16(): number {
    this.need(2);
    const v = this.buf.readUInt16LE(this.start);
    this.start += 2;
    return v;
  }

  str(): string {
    const n = this.u32();
    this.need(n);
    const s = this.buf.toString("utf8", this.start, this.start + n);
    this.start += n;
    return s;
  }

  private need(n: number): void {
    if (!this.has(n)) throw new Error(`run file ${this.path} ends inside a record`);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * K-way merge of sorted sources. `less(a, b)` orders entries; ties go to the earlier source, so a merge of
 * runs written in input order keeps input order for equal keys (the sort is stable end to end).
 */
export function* mergeSorted<T>(sources: Iterator<T>[], less: (a: T, b: T) => boolean): Generator<T> {
  const heads: { value: T; src: number }[] = [];
  const before = (x: { value: T; src: number }, y: { value: T; src: number }) =>
    less(x.value, y.value) || (!less(y.value, x.value) && x.src < y.src);
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heads.length && before(heads[l]!, heads[m]!)) m = l;
      if (r < heads.length && before(heads[r]!, heads[m]!)) m = r;
      if (m === i) return;
      [heads[i], heads[m]] = [heads[m]!, heads[i]!];
      i = m;
    }
  };
  sources.forEach((it, src) => {
    const n = it.next();
    if (!n.done) heads.push({ value: n.value, src });
  });
  for (let i = (heads.length >> 1) - 1; i >= 0; i--) siftDown(i);
  while (heads.length > 0) {
    const top = heads[0]!;
    yield top.value;
    const n = sources[top.src]!.next();
    if (n.done) {
      const last = heads.pop()!;
      if (heads.length > 0) heads[0] = last;
    } else {
      heads[0] = { value: n.value, src: top.src };
    }
    siftDown(0);
  }
}
