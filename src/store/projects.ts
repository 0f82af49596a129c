// Projects: the unit every item, run and project-scoped key belongs to.
import { randomUUID } from "node:crypto";
import type { Database } from "lmdb";
import { isStorableId, nowIso } from "./keys-util.js";
import type { Project } from "./types.js";

export interface NewProject {
  name: string;
  target_model?: string | null;
  vocabularies?: string[];
  description?: string | null;
}

/** How many project ids `exists` remembers; beyond that it starts over. */
const KNOWN_CACHE_SIZE = 4096;

export class ProjectStore {
  /**
   * Ids seen to exist. Projects are never deleted, so a project that exists keeps existing; only
   * absence is asked of LMDB again, so one created by another process (the CLI) is found at once.
   */
  private readonly known = new Set<string>();

  constructor(private readonly db: Database<Project, string>) {}

  get(id: string): Project | undefined {
    return isStorableId(id) ? this.db.get(id) : undefined;
  }

  /**
   * Whether the project exists, without decoding it: every project-scoped request asks. Call outside a
   * write transaction, where a read could see a project that a rollback then removes.
   */
  exists(id: string): boolean {
    if (this.known.has(id)) return true;
    if (this.get(id) === undefined) return false;
    if (this.known.size >= KNOWN_CACHE_SIZE) this.known.clear();
    this.known.add(id);
    return true;
  }

  /** All projects in id order; a deployment has few, so no paging. */
  list(): Project[] {
    return [...this.db.getRange().map(({ value }) => value)];
  }

  /** Call inside a write transaction. */
  create(input: NewProject): Project {
    const project: Project = {
      id: randomUUID(),
      name: input.name,
      target_model: input.target_model ?? null,
      vocabularies: input.vocabularies ?? [],
      description: input.description ?? null,
      created_at: nowIso(),
    };
    this.db.put(project.id, project);
    return project;
  }
}
