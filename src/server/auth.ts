// Who is calling and what they may do: bearer-key authentication and per-project authorization.
import { AppError } from "../errors.js";
import type { Stores } from "../store/env.js";
import type { KeyScope } from "../store/types.js";

export interface Principal {
  keyId: string;
  scope: KeyScope;
  projectId: string | null;
  /** The key's reviewer name, recorded in the audit events of its changes. */
  name: string | null;
}

/** What a route needs: nothing, any valid key, admin, or read/write access to the path's project. */
export type Access = "public" | "any" | "admin" | "read" | "write";

const unauthorized = (detail: string) => new AppError(401, "unauthorized", detail);

/** 401 for a missing, malformed, unknown or revoked key; the detail does not say which of the last two. */
export function authenticate(stores: Stores, header: string | undefined): Principal {
  if (!header) throw unauthorized("Not authenticated");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized("Invalid authentication credentials");
  const key = stores.keys.authenticate(match[1]!);
  if (!key) throw unauthorized("Invalid or revoked API key");
  return { keyId: key.id, scope: key.scope, projectId: key.project_id, name: key.name ?? null };
}

/**
 * 403 unless the key may do `access` on `projectId`. Checked before the project's existence, so a key
 * scoped to one project learns nothing about which other project ids exist.
 */
export function authorize(principal: Principal, access: Access, projectId: string | undefined): void {
  if (access === "public" || access === "any" || principal.scope === "admin") return;
  if (access === "admin") {
    throw new AppError(403, "forbidden", `API key ${principal.keyId} is not an admin key`);
  }
  if (projectId === undefined || principal.projectId !== projectId) {
    throw new AppError(403, "forbidden", `API key ${principal.keyId} has no access to project ${projectId}`);
  }
  if (access === "write" && principal.scope !== "write") {
    throw new AppError(
      403,
      "forbidden",
      `API key ${principal.keyId} has read-only access to project ${projectId}`,
    );
  }
}

/** Whether the key may see a project at all (for listing projects). */
export const canSee = (principal: Principal, projectId: string): boolean =>
  principal.scope === "admin" || principal.projectId === projectId;
