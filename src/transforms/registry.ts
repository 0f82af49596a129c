// Name -> transform definition. Built-ins are registered once; custom ones are added per program or module.
import { AppError } from "../errors.js";
import type { TransformDefinition, TransformFactory } from "./types.js";

export class TransformRegistry {
  private readonly defs = new Map<string, TransformDefinition<never>>();

  constructor(parent?: TransformRegistry) {
    if (parent) for (const [name, def] of parent.defs) this.defs.set(name, def);
  }

  /** Registers a transform; a plain function is taken as a factory with unchecked config. */
  register<C>(name: string, def: TransformDefinition<C> | TransformFactory<C>): this {
    if (!/^[A-Za-z_][\w.-]*$/.test(name)) {
      throw new AppError(400, "invalid_transform_name", `invalid transform name "${name}"`);
    }
    const definition = typeof def === "function" ? { create: def } : def;
    this.defs.set(name, definition as unknown as TransformDefinition<never>);
    return this;
  }

  get(name: string): TransformDefinition<Record<string, unknown>> | undefined {
    return this.defs.get(name) as TransformDefinition<Record<string, unknown>> | undefined;
  }

  has(name: string): boolean {
    return this.defs.has(name);
  }

  names(): string[] {
    return [...this.defs.keys()].sort();
  }

  /** A copy that can take more registrations without touching this one. */
  extend(): TransformRegistry {
    return new TransformRegistry(this);
  }
}
