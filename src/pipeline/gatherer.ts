// The main thread's half of gathering for `crossmap map`: records held by the stage (children, and parents
// others gather into) wait here until their group is complete, then go out with their children inside.
// Groups are complete at the end of the run (any input order) or, with `--gather contiguous`, when the
// input moves on to another key. Held records are kept in memory up to a budget, then spilled to
// partition files by group and gathered one partition at a time, so memory stays bounded either way.
import { createReadStream } from "node:fs";
import { appendFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { type GatherItem, type GatherPlan, gather } from "../crossmap/gather.js";
import type { TargetRecord } from "../crossmap/types.js";
import { AppError } from "../errors.js";
import { parseJson, stringifyJson } from "./json.js";
import type { HeldRecord, RunIssue } from "./types.js";

export type GatherMode = "run" | "contiguous";

export interface GathererOptions {
  plan: GatherPlan;
  mode: GatherMode;
  /** Bytes of held JSON kept in memory before spilling (mode "run"). */
  memoryBytes: number;
  /** Whether output is split by entity (per-entity files) or all under "". */
  perEntity: boolean;
  write(entity: string, text: string): Promise<void>;
  issue(issue: RunIssue): Promise<void>;
}

export interface GatherCounts {
  written: number;
  orphans: number;
  spilledPartitions: number;
}

const PARTITIONS = 64;
type Held = HeldRecord & { seq: number };

export class Gatherer {
  private buffer: Held[] = [];
  private bytes = 0;
  private seq = 0;
  private currentGroup: string | undefined;
  private spillDir: string | undefined;
  private readonly counts: GatherCounts = { written: 0, orphans: 0, spilledPartitions: 0 };
  private readonly nested: boolean;

  constructor(private readonly options: GathererOptions) {
    const children = new Set(options.plan.rules.keys());
    this.nested = [...options.plan.parents].some((p) => children.has(p));
  }

  /** The group a held record belongs to: its parent's key, or (for a parent) its own. */
  private groupOf(h: HeldRecord): string {
    if (h.into !== undefined) {
      const rule = this.options.plan.rules.get(h.output)?.[h.into.rule];
      return `${rule?.parent ?? ""}\u0000${h.into.key}`;
    }
    return `${this.options.plan.groups?.get(h.output) ?? h.output}\u0000${h.key ?? ""}`;
  }

  async add(held: readonly HeldRecord[]): Promise<void> {
    for (const h of held) {
      const item: Held = { ...h, seq: this.seq++ };
      if (this.options.mode === "contiguous") {
        const group = this.groupOf(h);
        if (this.currentGroup !== undefined && group !== this.currentGroup) await this.flushBuffer();
        this.currentGroup = group;
      }
      if (this.spillDir !== undefined) {
        await this.spill([item]);
        continue;
      }
      this.buffer.push(item);
      this.bytes += h.json.length;
      if (this.options.mode === "run" && this.bytes > this.options.memoryBytes) await this.startSpilling();
    }
  }

  async finish(): Promise<GatherCounts> {
    if (this.spillDir === undefined) await this.flushBuffer();
    else {
      try {
        for (let p = 0; p < PARTITIONS; p++) await this.gatherPartition(join(this.spillDir, `${p}.ndjson`));
      } finally {
        await rm(this.spillDir, { recursive: true, force: true });
      }
    }
    return this.counts;
  }

  /** Drops spilled files (an interrupted or failed run). */
  async abort(): Promise<void> {
    if (this.spillDir !== undefined) await rm(this.spillDir, { recursive: true, force: true });
  }

  private async flushBuffer(): Promise<void> {
    const items = this.buffer;
    this.buffer = [];
    this.bytes = 0;
    await this.emit(items);
  }

  private async startSpilling(): Promise<void> {
    if (this.nested) {
      throw new AppError(
        400,
        "gather_memory",
        `records held for gathering exceed --gather-memory (${this.options.memoryBytes} bytes), and this crossmap gathers in more than one level, which needs them all in memory: raise --gather-memory, or use --gather contiguous for input grouped by key`,
      );
    }
    this.spillDir = await mkdtemp(join(tmpdir(), "crossmap-gather-"));
    const items = this.buffer;
    this.buffer = [];
    this.bytes = 0;
    await this.spill(items);
  }

  private async spill(items: readonly Held[]): Promise<void> {
    const byPartition = new Map<number, string[]>();
    for (const h of items) {
      const p = partitionOf(this.groupOf(h));
      const lines = byPartition.get(p) ?? [];
      lines.push(`${stringifyJson(h)}\n`);
      byPartition.set(p, lines);
    }
    for (const [p, lines] of byPartition) {
      await appendFile(join(this.spillDir as string, `${p}.ndjson`), lines.join(""));
    }
  }

  private async gatherPartition(file: string): Promise<void> {
    const items: Held[] = [];
    try {
      const lines = createInterface({
        input: createReadStream(file, "utf8"),
        crlfDelay: Number.POSITIVE_INFINITY,
      });
      for await (const line of lines) if (line !== "") items.push(JSON.parse(line) as Held);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw err;
    }
    this.counts.spilledPartitions++;
    items.sort((a, b) => a.seq - b.seq);
    await this.emit(items);
  }

  private async emit(items: readonly Held[]): Promise<void> {
    if (items.length === 0) return;
    const gatherItems: GatherItem<Held>[] = items.map((h) => {
      const g: GatherItem<Held> = {
        output: h.output,
        entity: h.entity,
        value: parseJson(h.json) as TargetRecord,
        place: h,
      };
      if (h.key !== undefined) g.key = h.key;
      if (h.into !== undefined) g.into = h.into;
      if (h.id !== undefined) g.id = h.id;
      return g;
    });
    const outcome = gather(this.options.plan, gatherItems);
    for (const t of outcome.top) {
      await this.options.write(this.options.perEntity ? t.entity : "", `${stringifyJson(t.value)}\n`);
      this.counts.written++;
    }
    for (const o of outcome.orphans) {
      this.counts.orphans++;
      const rule = this.options.plan.rules.get(o.output)?.[o.into?.rule ?? 0];
      await this.options.issue({
        ...o.place.place,
        code: "orphan_record",
        severity: "error",
        message: `${o.output} was to be gathered into ${rule?.parent ?? "its parent"} with key ${JSON.stringify(o.into?.key.replaceAll("\u0000", "|"))}, which no record of the run produced; it was not written`,
      });
    }
    for (const d of outcome.duplicates) {
      await this.options.issue({
        ...d.place.place,
        code: "duplicate_parent",
        severity: "warning",
        message: `an earlier ${d.output} had the same key ${JSON.stringify(d.key?.replaceAll("\u0000", "|"))}: records with that key were gathered into the earlier one`,
      });
    }
  }
}

/** FNV-1a of the group key, for a partition that is the same on every run. */
function partitionOf(group: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < group.length; i++) {
    h ^= group.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % PARTITIONS;
}
