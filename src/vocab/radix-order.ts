// Sort order of a chunk of rows by a u32 key, for the build's external sorts: row indexes in key order,
// ties in input order. An LSD radix sort on the two 16-bit halves of the key: linear, stable and
// comparator-free, so millions of rows sort in tens of ms.

/** Indexes 0..n-1 ordered by `keys[i]`, equal keys in index order. */
export function radixOrder(keys: Uint32Array, n: number): Uint32Array {
  let from = new Uint32Array(n);
  for (let i = 0; i < n; i++) from[i] = i;
  let to = new Uint32Array(n);
  const counts = new Uint32Array(65537);
  for (const shift of [0, 16]) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[((keys[i]! >>> shift) & 0xffff) + 1]!++;
    for (let b = 1; b <= 65536; b++) counts[b]! += counts[b - 1]!;
    for (let i = 0; i < n; i++) {
      const row = from[i]!;
      to[counts[(keys[row]! >>> shift) & 0xffff]!++] = row;
    }
    [from, to] = [to, from];
  }
  return from;
}
