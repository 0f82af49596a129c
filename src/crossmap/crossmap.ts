// A loaded, fully compiled crossmap: its metadata and one ready RecordMapper per source entity.
import { AppError } from "../errors.js";
import type { EntityPlan, FieldMapping } from "./compile.js";
import type { CrossmapDocument } from "./schema.js";
import type { RecordMapper } from "./types.js";

export class Crossmap {
  constructor(
    readonly document: CrossmapDocument,
    private readonly plans: ReadonlyMap<string, EntityPlan>,
    /** The file it was loaded from, when it came from one. */
    readonly file?: string,
  ) {}

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

  targetEntity(sourceEntity: string): string {
    return this.plan(sourceEntity).targetEntity;
  }

  mapper(sourceEntity: string): RecordMapper {
    return this.plan(sourceEntity).mapper;
  }

  /** Every compiled field mapping, in document order. */
  fieldMappings(): FieldMapping[] {
    return [...this.plans.values()].flatMap((p) => p.fields);
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
