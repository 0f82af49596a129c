// Projects over HTTP: admins create them; every key lists the projects it may see.
import { canSee } from "../auth.js";
import { presentProject } from "../present.js";
import { type AnyRoute, defineRoute } from "../route.js";
import { projectCreateBody, projectList, projectOut } from "../schemas.js";

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
];
