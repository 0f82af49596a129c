// BEGIN/COMMIT/ROLLBACK around a piece of work on a single-connection client; a nested call joins the outer one.
export function transactional(
  exec: (sql: string) => Promise<void>,
): <T>(work: () => Promise<T>) => Promise<T> {
  let depth = 0;
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (depth > 0) return work();
    await exec("BEGIN");
    depth++;
    try {
      const result = await work();
      depth--;
      await exec("COMMIT");
      return result;
    } catch (err) {
      depth--;
      await exec("ROLLBACK").catch(() => {});
      throw err;
    }
  };
}
