// A loaded, fully compiled crossmap: its metadata and one ready RecordMapper per source entity.
import { AppError } from "../errors.js";
import type { ConceptOverlay, OverlaySlot } from "../transforms/overlay.js";
import type { EntityPlan, FieldMapping, OutputInfo } from "./compile.js";
import { EMPTY_GATHER_PLAN, type GatherPlan } from "./gather.js";
import type { CrossmapDocument } from "./schema.js";
import type { RecordMapper } from "./types.js";

export class Crossmap {
  constructor(
    readonly document: CrossmapDocument,
    private readonly plans: ReadonlyMap<string, EntityPlan>,
    /** The file it was loaded from, when it came from one. */
    readonly file?: string,
    /** Which outputs gather into which (empty for crossmaps that gather nothing). */
    readonly gatherPlan: GatherPlan = EMPTY_GATHER_PLAN,
    /** Where its vocabulary transforms read a project's decisions, when it was compiled with one. */
    readonly overlay?: OverlaySlot,
  ) {}

  /**
   * Runs `fn` (synchronous: a batch of records) with a project's decisions applied, then removes them,
   * so that one compiled crossmap serves runs of different projects one after another.
   */
  withOverlay<R>(overlay: ConceptOverlay | undefined, fn: () => R): R {
    const slot = this.overlay;
    if (overlay === undefined) return fn();
    if (!slot) throw new Error("this crossmap was compiled without an overlay slot (LoadOptions.overlay)");
    const previous = slot.current;
    slot.current = overlay;
    try {
      return fn();
    } finally {
      slot.current = previous;
    }
  }

  get source(): string {
    return this.document.source;
  }

  get target(): string {
    return this.document.target;
  }

  /** Source entity names, in entity_map order. */
  entities(): string[] {
    return [...this.plans.keys()];
  }

  hasEntity(sourceEntity: string): boolean {
    return this.plans.has(sourceEntity);
  }

  /** The target entity of the entity's first output (its only one, in the spec's form). */
  targetEntity(sourceEntity: string): string {
    return this.plan(sourceEntity).targetEntity;
  }

  /**
   * The target entities a record of the entity may become, distinct, in document order, comma-separated
   * ("measurement,observation"): what a run or a response names when an entity routes or fans out.
   */
  targetEntities(sourceEntity: string): string {
    return [...new Set(this.plan(sourceEntity).outputs.map((o) => o.targetEntity))].join(",");
  }

  /** Every output a record of the entity may produce, in document order. */
  outputs(sourceEntity: string): OutputInfo[] {
    return this.plan(sourceEntity).outputs;
  }

  /** Whether any output gathers records into another. */
  get gathers(): boolean {
    return this.gatherPlan.rules.size > 0;
  }

  mapper(sourceEntity: string): RecordMapper {
    return this.plan(sourceEntity).mapper;
  }

  /** Every compiled field mapping, in document order. */
  fieldMappings(): FieldMapping[] {
    return [...this.plans.values()].flatMap((p) => p.fields);
  }

  /**
   * The top-level fields (columns, a resource's elements) of a source entity's records that the crossmap
   * reads: every field mapping's sources and further reads, its conditions, and every path named in its
   * entity_map entry (for_each, ids, keys), and the fields `not_mapped` declares read but deliberately not
   * mapped. Errs towards more: a name it lists by mistake only hides an
   * `unread_column` warning, never a value. Undefined for an entity the crossmap does not map.
   */
  readFields(sourceEntity: string): ReadonlySet<string> | undefined {
    const p = this.plans.get(sourceEntity);
    if (!p) return undefined;
    const heads = new Set<string>();
    for (const f of p.fields) for (const s of [...f.sources, ...f.reads]) heads.add(head(s));
    for (const r of p.reads) heads.add(head(r));
    const collect = (v: unknown): void => {
      if (typeof v === "string") heads.add(head(v));
      else if (Array.isArray(v)) v.forEach(collect);
      else if (v !== null && typeof v === "object") Object.values(v).forEach(collect);
    };
    collect(this.document.entity_map[sourceEntity]);
    for (const f of this.document.not_mapped?.[sourceEntity] ?? []) heads.add(f);
    return heads;
  }

  /** Source paths read by conditions and keys, per source entity (beyond the field mappings' sources). */
  conditionReads(): { sourceEntity: string; path: string }[] {
    return [...this.plans.values()].flatMap((p) =>
      p.reads.map((path) => ({ sourceEntity: p.sourceEntity, path })),
    );
  }

  private plan(sourceEntity: string): EntityPlan {
    const plan = this.plans.get(sourceEntity);
    if (!plan) {
      throw new AppError(
        422,
        "unknown_entity",
        `unknown source entity "${sourceEntity}" for ${this.source} -> ${this.target}; known: ${this.entities().join(", ")}`,
        [
          {
            path: ["source_entity"],
            code: "unknown_entity",
            message: `unknown source entity "${sourceEntity}"`,
          },
        ],
      );
    }
    return plan;
  }
}

/** The top-level field a path starts with: `code.coding[0].code` -> `code`. */
const head = (path: string): string => path.split(/[.[]/)[0] ?? path;
