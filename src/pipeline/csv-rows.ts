// Cuts CSV/TSV text into rows of cells (RFC 4180 quoting, comma, tab, pipe or semicolon), fed chunk by
// chunk, keeping the line each row starts on. A quote that is never closed does not swallow the rest of
// the file: its row is reported and the lines after the one it opened on are read again.

/** One row, or a line the parser could not make a row of. */
export interface CsvRow {
  /** 1-based line the row starts on (where the quote opened, for an unterminated quote). */
  line: number;
  cells: string[];
  /** Text offsets of the row in the whole input, [start, end): UTF-8 faults are matched to rows by them. */
  start: number;
  end: number;
  problem?: { code: "unterminated_quote" | "record_too_large" | "cut_short"; message: string };
}

export interface CsvRowsOptions {
  /** A row (or a quoted cell) longer than this many characters is not read; see docs/map.md. */
  maxRecordChars: number;
  /** How the limit is named in messages, e.g. "67108864 bytes (--max-record-bytes)". */
  limitLabel: string;
}

interface QuoteStart {
  /** Offset in the buffer of the opening quote. */
  at: number;
  line: number;
}

type Parsed =
  | { more: true; inQuote?: QuoteStart }
  | {
      more?: false;
      cells: string[];
      end: number;
      next: number;
      nextLine: number;
      spanned?: QuoteStart;
      suspect?: boolean;
    }
  | { more?: false; unclosed: QuoteStart };

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

export class CsvRows {
  /** The first row's cells, once read. */
  header: string[] | undefined;
  private buf = "";
  /** Offset of buf[0] in the whole input's text. */
  private base = 0;
  /** Line number of buf[0], always the start of a row. */
  private line = 1;
  private delimiter = 0;
  /**
   * Where the next quote of `buf` is, from the last row's search on (-1: none in `buf`; -2: not
   * searched yet). Looking for it again at every row would scan to the end of `buf` each time when it
   * holds no quote (the common export), which is quadratic in the size of a piece read.
   */
  private nextQuote = -2;
  /** Dropping the rest of an over-long line without a quote: where it started and its length so far. */
  private skipping: { line: number; start: number; chars: number } | undefined;

  constructor(private readonly options: CsvRowsOptions) {}

  /** The rows `text` completes. */
  push(text: string): CsvRow[] {
    const rows: CsvRow[] = [];
    let rest = text;
    if (this.skipping) {
      const nl = rest.indexOf("\n");
      const skipped = nl === -1 ? rest.length : nl;
      this.skipping.chars += skipped;
      this.base += nl === -1 ? skipped : nl + 1;
      if (nl === -1) return rows;
      rows.push(this.skipped());
      this.line++;
      rest = rest.slice(nl + 1);
    }
    this.buf = this.buf.length === 0 ? rest : this.buf + rest;
    this.cut(rows, false);
    return rows;
  }

  /** The rows left at the end of the input. */
  end(): CsvRow[] {
    const rows: CsvRow[] = [];
    if (this.skipping) rows.push(this.skipped());
    else this.cut(rows, true);
    return rows;
  }

  private cut(rows: CsvRow[], final: boolean): void {
    const buf = this.buf;
    const limit = this.options.maxRecordChars;
    let pos = 0;
    let line = this.line;
    this.nextQuote = -2;
    while (pos < buf.length) {
      if (this.delimiter === 0) {
        const nl = buf.indexOf("\n", pos);
        if (nl === -1 && !final) break;
        this.delimiter = delimiterOf(buf.slice(pos, nl === -1 ? buf.length : nl));
      }
      const r = this.row(buf, pos, line, final);
      if (r.more) {
        if (buf.length - pos <= limit) break;
        if (r.inQuote) {
          // A quoted cell that outgrows the limit is taken as an unterminated quote, so the rows after
          // it are neither held nor lost waiting for a quote that may never come.
          ({ pos, line } = this.unterminated(rows, buf, r.inQuote, pos, true));
          continue;
        }
        this.skipping = { line, start: this.base + pos, chars: buf.length - pos };
        line += countLf(buf, pos, buf.length);
        pos = buf.length;
        break;
      }
      if ("unclosed" in r) {
        ({ pos, line } = this.unterminated(rows, buf, r.unclosed, pos, false));
        continue;
      }
      // A quoted cell over several lines that leaves its row with the wrong number of cells, or that holds
      // a stray quote, is far more likely a quote left open than a cell with line breaks: the row is
      // reported and the lines after the quote are read again.
      if (r.spanned && this.header !== undefined && (r.suspect || r.cells.length !== this.header.length)) {
        ({ pos, line } = this.unterminated(rows, buf, r.spanned, pos, false));
        continue;
      }
      const row: CsvRow = { line, cells: r.cells, start: this.base + pos, end: this.base + r.end };
      if (r.end - pos > limit) row.problem = this.tooLarge(r.end - pos);
      this.header ??= r.cells;
      rows.push(row);
      pos = r.next;
      line = r.nextLine;
    }
    this.buf = pos >= buf.length ? "" : buf.slice(pos);
    this.base += Math.min(pos, buf.length);
    this.line = line;
  }

  /** Reads the row at `pos`. */
  private row(buf: string, pos: number, line: number, final: boolean): Parsed {
    const nl = buf.indexOf("\n", pos);
    let q = this.nextQuote;
    if (q === -2 || (q !== -1 && q < pos)) q = this.nextQuote = buf.indexOf('"', pos);
    if (q === -1 || (nl !== -1 && q > nl)) {
      // The common row: no quote before its line ends.
      if (nl === -1 && !final) return { more: true };
      const stop = nl === -1 ? buf.length : nl;
      const end = stop > pos && buf.charCodeAt(stop - 1) === CR ? stop - 1 : stop;
      return {
        cells: buf.slice(pos, end).split(String.fromCharCode(this.delimiter)),
        end,
        next: stop + 1,
        nextLine: line + 1,
      };
    }
    return this.quotedRow(buf, pos, line, final);
  }

  private quotedRow(buf: string, pos: number, line: number, final: boolean): Parsed {
    const d = this.delimiter;
    const cells: string[] = [];
    let i = pos;
    let lines = 0;
    let spanned: QuoteStart | undefined;
    /** A cell over several lines held a quote that was neither doubled nor closing. */
    let suspect = false;
    for (;;) {
      if (buf.charCodeAt(i) === QUOTE) {
        const open: QuoteStart = { at: i, line: line + lines };
        let value = "";
        let from = i + 1;
        let k = from;
        let stray = false;
        for (;;) {
          const j = buf.indexOf('"', k);
          if (j === -1) return final ? { unclosed: open } : { more: true, inQuote: open };
          const next = j + 1 < buf.length ? buf.charCodeAt(j + 1) : -1;
          if (next === QUOTE) {
            value += buf.slice(from, j + 1);
            from = k = j + 2;
            continue;
          }
          if (next === -1 && !final) return { more: true, inQuote: open };
          if (next === -1 || next === d || next === LF || next === CR) {
            value += buf.slice(from, j);
            const inner = countLf(buf, i, j);
            if (inner > 0) {
              spanned ??= open;
              suspect ||= stray;
            }
            lines += inner;
            cells.push(value);
            i = j + 1;
            break;
          }
          // A quote inside a quoted cell that is neither doubled nor closing is kept as text, as readers
          // of hand-made CSV expect.
          stray = true;
          k = j + 1;
        }
      } else {
        let j = i;
        while (j < buf.length) {
          const c = buf.charCodeAt(j);
          if (c === d || c === LF) break;
          j++;
        }
        if (j >= buf.length && !final) return { more: true };
        cells.push(buf.slice(i, j > i && buf.charCodeAt(j - 1) === CR ? j - 1 : j));
        i = j;
      }
      // At a delimiter, a line end or the end of the input.
      const c = i < buf.length ? buf.charCodeAt(i) : -1;
      if (c === d) {
        i++;
        if (i < buf.length) continue;
        if (!final) return { more: true };
        cells.push("");
        break;
      }
      if (c === CR) {
        if (i + 1 >= buf.length && !final) return { more: true };
        i++;
      }
      break;
    }
    const end = i > pos && buf.charCodeAt(i - 1) === CR ? i - 1 : i;
    const next = i < buf.length && buf.charCodeAt(i) === LF ? i + 1 : i;
    const parsed: Parsed = { cells, end, next, nextLine: line + lines + 1 };
    if (spanned) parsed.spanned = spanned;
    if (suspect) parsed.suspect = true;
    return parsed;
  }

  private tooLarge(chars: number): NonNullable<CsvRow["problem"]> {
    return {
      code: "record_too_large",
      message: `the row is ${chars} characters long, over the limit of ${this.options.limitLabel} per record; it is not read`,
    };
  }

  private skipped(): CsvRow {
    const s = this.skipping!;
    this.skipping = undefined;
    return {
      line: s.line,
      cells: [],
      start: s.start,
      end: s.start + s.chars,
      problem: this.tooLarge(s.chars),
    };
  }

  /** Reports the row of a quote left open, and says where reading starts again: the next line. */
  private unterminated(
    rows: CsvRow[],
    buf: string,
    opened: QuoteStart,
    pos: number,
    overLimit: boolean,
  ): { pos: number; line: number } {
    const how = overLimit
      ? `is not closed within the limit of ${this.options.limitLabel} per record`
      : "is not closed where its row should end";
    const nl = buf.indexOf("\n", opened.at);
    const next = nl === -1 ? buf.length : nl + 1;
    rows.push({
      line: opened.line,
      cells: [],
      start: this.base + pos,
      end: this.base + next,
      problem: {
        code: "unterminated_quote",
        message: `the quote that opens a cell on line ${opened.line} ${how}; that row is not read, and the lines after line ${opened.line} are read again`,
      },
    });
    return { pos: next, line: opened.line + 1 };
  }
}

/** The delimiters a header line is told by, in the order that breaks a tie. */
const DELIMITERS = [0x2c, 0x09, 0x7c, 0x3b]; // comma, tab, pipe (Oracle, Teradata, bcp -t"|"), semicolon

/**
 * Comma, tab, pipe or semicolon, whichever the first line has most of (a tie is the earlier of them):
 * header names hold none of them, so a header of two or more columns has only its delimiter.
 */
export function delimiterOf(first: string): number {
  const counts = DELIMITERS.map(() => 0);
  for (let i = 0; i < first.length; i++) {
    const k = DELIMITERS.indexOf(first.charCodeAt(i));
    if (k !== -1) counts[k]!++;
  }
  let best = 0;
  for (let k = 1; k < counts.length; k++) if (counts[k]! > counts[best]!) best = k;
  return DELIMITERS[best]!;
}

function countLf(buf: string, from: number, to: number): number {
  let n = 0;
  for (let i = buf.indexOf("\n", from); i !== -1 && i < to; i = buf.indexOf("\n", i + 1)) n++;
  return n;
}
