// The mapping plan: which compiled mapper handles a source entity, with `--via` chaining two crossmaps
// (A: from -> via, B: via -> to) into one mapper per source entity.
import type { MappingIssue, MapResult, Position, RecordMapper, SourceRecord } from "../crossmap/types.js";
import { AppError } from "../errors.js";

/** What the pipeline needs of a loaded crossmap (the engine's `Crossmap` satisfies it). */
export interface CrossmapLike {
  readonly source: string;
  readonly target: string;
  readonly file?: string;
  entities(): string[];
  targetEntity(sourceEntity: string): string | undefined;
  mapper(sourceEntity: string): RecordMapper;
}

/** Maps records of one source entity, through every leg of the plan. */
export interface EntityMapper {
  readonly sourceEntity: string;
  readonly targetEntity: string;
  map(record: SourceRecord, position?: Position): MapResult;
}

export interface MappingPlan {
  readonly source: string;
  readonly target: string;
  /** Source entities the plan can map, in crossmap order. */
  readonly entities: readonly string[];
  /** The mapper for a source entity, or undefined when the plan has none. Compiled once, then cached. */
  mapperFor(entity: string): EntityMapper | undefined;
  /**
   * Source entities the first crossmap maps but a later one (--via) cannot take further, each with a
   * sentence saying why; their records are reported, and the rest of the run goes on.
   */
  readonly gaps: ReadonlyMap<string, string>;
  /** The entity a file name stands for (`PERSON.csv` -> `person`), compared without case. */
  entityForFileName(fileName: string): string | undefined;
}

/** Chains crossmaps: each leg's target standard must be the next leg's source standard. */
export function composePlan(legs: readonly CrossmapLike[]): MappingPlan {
  const first = legs[0];
  const last = legs[legs.length - 1];
  if (!first || !last) throw new AppError(400, "invalid_plan", "a mapping plan needs at least one crossmap");
  for (let i = 1; i < legs.length; i++) {
    const prev = legs[i - 1]!;
    const next = legs[i]!;
    if (prev.target !== next.source) {
      throw new AppError(
        400,
        "invalid_plan",
        `cannot chain crossmaps: ${describe(prev)} ends in ${prev.target} but ${describe(next)} starts from ${next.source}`,
      );
    }
  }
  const entities = first.entities();
  const byLowerName = new Map(entities.map((e) => [e.toLowerCase(), e]));
  const cache = new Map<string, EntityMapper | undefined>();
  const gaps = new Map<string, string>();
  for (const entity of entities) {
    let current = entity;
    for (let i = 0; i < legs.length; i++) {
      const leg = legs[i]!;
      if (!leg.entities().includes(current)) {
        gaps.set(
          entity,
          `${describe(leg)} has no mapping for ${leg.source} entity "${current}", which ${describe(legs[i - 1]!)} makes of ${first.source} entity "${entity}"`,
        );
        break;
      }
      current = leg.targetEntity(current) ?? current;
    }
  }

  const build = (entity: string): EntityMapper | undefined => {
    if (!entities.includes(entity) || gaps.has(entity)) return undefined;
    const mappers: RecordMapper[] = [];
    let current = entity;
    for (const leg of legs) {
      const mapper = leg.mapper(current);
      mappers.push(mapper);
      current = mapper.targetEntity;
    }
    return mappers.length === 1 ? mappers[0] : chain(entity, current, mappers);
  };

  return {
    source: first.source,
    target: last.target,
    entities,
    gaps,
    mapperFor(entity) {
      if (!cache.has(entity)) cache.set(entity, build(entity));
      return cache.get(entity);
    },
    entityForFileName(fileName) {
      const base = fileName.replace(/^.*[\\/]/, "").replace(/\..*$/, "");
      return byLowerName.get(base.toLowerCase());
    },
  };
}

function chain(sourceEntity: string, targetEntity: string, mappers: RecordMapper[]): EntityMapper {
  return {
    sourceEntity,
    targetEntity,
    map(record, position) {
      let value: SourceRecord = record;
      let issues: readonly MappingIssue[] = [];
      for (const mapper of mappers) {
        const result = mapper.map(value, position);
        value = result.value;
        if (result.issues.length > 0)
          issues = issues.length === 0 ? result.issues : [...issues, ...result.issues];
      }
      return { value, issues };
    },
  };
}

function describe(leg: CrossmapLike): string {
  return leg.file
    ? `crossmap ${leg.file.replace(/^.*[\\/]/, "")}`
    : `crossmap ${leg.source} -> ${leg.target}`;
}
