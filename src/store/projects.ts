// Projects: the unit every item, run and project-scoped key belongs to.
import { randomUUID } from "node:crypto";
import type { Database } from "lmdb";
import { nowIso } from "./keys-util.js";
import type { Project } from "./types.js";

export interface NewProject {
  name: string;
  target_model?: string | null;
  vocabularies?: string[];
  description?: string | null;
}

export class ProjectStore {
  constructor(private readonly db: Database<Project, string>) {}

  get(id: string): Project | undefined {
    return this.db.get(id);
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
