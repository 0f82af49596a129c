// Options shared by the commands that map with crossmaps: repeatable --crossmap and --param.
import { AppError } from "../errors.js";

/** Commander's collector for a repeatable option. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Commander's collector for `--param name=value` (repeatable). */
export function collectParam(
  value: string,
  previous: Record<string, string> | undefined,
): Record<string, string> {
  const eq = value.indexOf("=");
  if (eq <= 0) throw new AppError(400, "usage", `--param takes name=value, got "${value}"`);
  return { ...(previous ?? {}), [value.slice(0, eq)]: value.slice(eq + 1) };
}
