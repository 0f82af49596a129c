// Growing the typed-array columns the build's sorters and collectors keep (millions of rows: no object
// per row), one helper instead of an allocate-and-copy per column in each of them.

type Column = Uint8Array | Uint16Array | Uint32Array;

/** A column of `size` rows holding `column`'s rows (as many as fit) and zeros after them. */
export function resized<T extends Column>(column: T, size: number): T {
  const out = new (column.constructor as new (n: number) => T)(size);
  out.set(column.length > size ? column.subarray(0, size) : column);
  return out;
}
