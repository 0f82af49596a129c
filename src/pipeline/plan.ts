// The mapping plan: which compiled mapper handles a source entity, with `--via` chaining two crossmaps
// (A: from -> via, B: via -> to) into one mapper per source entity.
import { EMPTY_GATHER_PLAN, type GatherPlan } from "../crossmap/gather.js";
import type {
  MapAllResult,
  MapOutput,
  MappingIssue,
  MapResult,
  Position,
  RecordMapper,
  SourceRecord,
} from "../crossmap/types.js";
import { AppError } from "../errors.js";

/** What the pipeline needs of a loaded crossmap (the engine's `Crossmap` satisfies it). */
export interface CrossmapLike {
  readonly source: string;
  readonly target: string;
  readonly file?: string;
  entities(): string[];
  targetEntity(sourceEntity: string): string | undefined;
  mapper(sourceEntity: string): RecordMapper;
  /** Which outputs gather into which; absent or empty when the crossmap gathers nothing. */
  readonly gatherPlan?: GatherPlan;
  /** The top-level fields of a source entity's records it reads (see Crossmap.readFields). */
  readFields?(sourceEntity: string): ReadonlySet<string> | undefined;
}

/** Maps records of one source entity, through every leg of the plan. */
export interface EntityMapper {
  readonly sourceEntity: string;
  readonly targetEntity: string;
  map(record: SourceRecord, position?: Position): MapResult;
  /** True when a record may produce other than exactly one record: use mapAll (see RecordMapper). */
  readonly multi?: boolean;
  mapAll?(record: SourceRecord, position?: Position): MapAllResult;
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
  /**
   * The top-level fields of a source entity's records the first crossmap reads; undefined when it cannot
   * tell (a crossmap object that does not say), and then nothing is reported as unread.
   */
  readFields(entity: string): ReadonlySet<string> | undefined;
  /** The last leg's gathering (an earlier leg gathers only in `stages`, per unit). */
  readonly gather: GatherPlan;
  /**
   * Set only when an earlier leg gathers, which `units` allows: the chain cut after each gathering leg.
   * A unit's records (an HL7 v2 message's) are mapped by the first stage and gathered within the unit;
   * the records that stage writes are then mapped by the next stage, and so on.
   */
  readonly stages?: readonly PlanStage[];
}

/** Some legs of a chain, ending with the only one of them that may gather. */
export interface PlanStage {
  mapperFor(entity: string): EntityMapper | undefined;
  readonly gather: GatherPlan;
}

export interface ComposeOptions {
  /**
   * The input comes in units that gathering completes within (HL7 v2: one message -> one Bundle), so a
   * leg before the last may gather: its records are complete at the end of each unit and go on from there.
   * Without units there is no point before the end of the run where an earlier leg's parents are complete.
   */
  units?: boolean;
}

const gathers = (leg: CrossmapLike): boolean => leg.gatherPlan !== undefined && leg.gatherPlan.rules.size > 0;

/** Chains crossmaps: each leg's target standard must be the next leg's source standard. */
export function composePlan(legs: readonly CrossmapLike[], options: ComposeOptions = {}): MappingPlan {
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
  const inner = legs.slice(0, -1).filter(gathers);
  const refused = options.units ? undefined : inner[0];
  if (refused) {
    throw new AppError(
      400,
      "invalid_plan",
      `${describe(refused)} gathers records into others; only the last crossmap of a --via chain may gather`,
    );
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

  const stages = inner.length > 0 ? stagesOf(legs) : undefined;
  const build = (entity: string): EntityMapper | undefined => {
    if (!entities.includes(entity) || gaps.has(entity)) return undefined;
    // Staged, the next legs see a unit's records only once they are gathered: this maps the first stage.
    if (stages) return stages[0]?.mapperFor(entity);
    const multi =
      legs.length > 1 &&
      (first.mapper(entity).multi === true ||
        legs.slice(1).some((l) => l.entities().some((e) => l.mapper(e).multi === true)));
    if (multi) return multiChain(entity, legs);
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
    readFields(entity) {
      return first.readFields?.(entity);
    },
    entityForFileName(fileName) {
      // person.csv, PERSON.csv.gz; cdm.person.csv (schema-qualified, as some exports name tables);
      // person-000000000001.csv.gz, visit_occurrence_02.csv (BigQuery's and split's shards).
      for (const part of fileName.replace(/^.*[\\/]/, "").split(".")) {
        const lower = part.toLowerCase();
        const entity = byLowerName.get(lower) ?? byLowerName.get(lower.replace(/[-_]\d+$/, ""));
        if (entity !== undefined) return entity;
      }
      return undefined;
    },
    gather: last.gatherPlan ?? EMPTY_GATHER_PLAN,
    ...(stages ? { stages } : {}),
  };
}

/** Cuts the chain after each leg that gathers; every stage is a plan of its own (without inner gathering). */
function stagesOf(legs: readonly CrossmapLike[]): PlanStage[] {
  const out: PlanStage[] = [];
  let from = 0;
  legs.forEach((leg, i) => {
    if (i === legs.length - 1 || gathers(leg)) {
      const part = composePlan(legs.slice(from, i + 1));
      out.push({ mapperFor: (e) => part.mapperFor(e), gather: part.gather });
      from = i + 1;
    }
  });
  return out;
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

/**
 * A chain where some leg may produce several records per record: every output of one leg is mapped by the
 * next leg's mapper for that output's entity. An output the next leg has no mapping for is left out with
 * an `unknown_entity` issue, and the others go on.
 */
function multiChain(sourceEntity: string, legs: readonly CrossmapLike[]): EntityMapper {
  const firstMapper = legs[0]?.mapper(sourceEntity) as RecordMapper;
  const all = (m: RecordMapper, r: SourceRecord, p: Position | undefined): MapAllResult =>
    m.multi && m.mapAll
      ? m.mapAll(r, p)
      : ((res) => ({
          outputs: [
            { output: `${m.sourceEntity}.${m.targetEntity}`, entity: m.targetEntity, value: res.value },
          ],
          issues: res.issues,
        }))(m.map(r, p));
  const mapAll = (record: SourceRecord, position?: Position): MapAllResult => {
    let r = all(firstMapper, record, position);
    const issues: MappingIssue[] = [...r.issues];
    for (const leg of legs.slice(1)) {
      const next: MapOutput[] = [];
      for (const o of r.outputs) {
        if (!leg.entities().includes(o.entity)) {
          issues.push({
            ...(position !== undefined ? { record: position } : {}),
            field: sourceEntity,
            target: o.entity,
            code: "unknown_entity",
            severity: "error",
            message: `${describe(leg)} has no mapping for entity "${o.entity}" (reached from source entity "${sourceEntity}"); that record was left out`,
          });
          continue;
        }
        const m = all(leg.mapper(o.entity), o.value, position);
        for (const i of m.issues) issues.push(i);
        for (const x of m.outputs) next.push(x);
      }
      r = { outputs: next, issues };
    }
    return { outputs: r.outputs, issues };
  };
  return {
    sourceEntity,
    targetEntity: firstMapper.targetEntity,
    multi: true,
    mapAll,
    map(record, position) {
      const r = mapAll(record, position);
      return { value: r.outputs[0]?.value ?? {}, issues: r.issues };
    },
  };
}

function describe(leg: CrossmapLike): string {
  return leg.file
    ? `crossmap ${leg.file.replace(/^.*[\\/]/, "")}`
    : `crossmap ${leg.source} -> ${leg.target}`;
}
