// Projects over HTTP: admins create them; every key lists the projects it may see.
import { canSee } from "../auth.js";
import { presentProject } from "../present.js";
import { type AnyRoute, defineRoute } from "../route.js";
import { projectCreateBody, projectList, projectOut } from "../schemas.js";
import { meResponse } from "../schemas-review.js";

export const projectRoutes = (): AnyRoute[] => [
  defineRoute({
    method: "post",
    path: "/api/v1/projects",
    summary: "Create a project (admin key)",
    tag: "projects",
    access: "admin",
    body: projectCreateBody,
    response: projectOut,
    status: 201,
    errors: [401, 403, 413, 422],
    handle: async ({ stores, body }) => {
      const project = await stores.write(() => stores.projects.create(body));
      return { status: 201, body: presentProject(project) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/projects",
    summary: "List the projects this key may see (all of them for an admin key)",
    tag: "projects",
    access: "any",
    response: projectList,
    errors: [401],
    handle: ({ stores, principal }) => ({
      body: {
        projects: stores.projects
          .list()
          .filter((p) => principal !== null && canSee(principal, p.id))
          .map(presentProject),
      },
    }),
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/me",
    summary: "The calling key: its id, reviewer name, and the projects it may use with which scope",
    tag: "projects",
    access: "any",
    response: meResponse,
    errors: [401],
    handle: ({ stores, principal }) => {
      const p = principal!;
      const admin = p.scope === "admin";
      const projects = stores.projects
        .list()
        .filter((project) => canSee(p, project.id))
        .map((project) => ({ id: project.id, name: project.name, scope: p.scope }));
      return { body: { key_id: p.keyId, name: p.name, admin, projects } };
    },
  }),
];
