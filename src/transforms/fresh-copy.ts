// A fixed JSON value handed out once per record (a constant, a value map's target): every record gets its
// own copy, so no output aliases another. An object value becomes an object literal in generated code: V8
// copies a literal's boilerplate, ~5x cheaper than JSON.parse of its text per record (measured on the HL7 v2
// samples: a value map's hit cost 5-7 us with JSON.parse). JSON is a JavaScript expression, except that a
// "__proto__" key sets the prototype in a literal, so such a value keeps JSON.parse. The code is generated
// on the first call: a value map has hundreds of values, of which a run meets a few (generating one costs
// tens of microseconds, in every thread that maps).

/** A function answering a fresh copy of `value` on each call (the value itself when it is not an object). */
export function freshCopy(value: unknown): () => unknown {
  if (value === null || typeof value !== "object") return () => value;
  const json = JSON.stringify(value);
  if (json.includes('"__proto__"')) return () => JSON.parse(json);
  let make: (() => unknown) | undefined;
  return () => {
    make ??= new Function(`return function freshCopy() { return ${json}; };`)() as () => unknown;
    return make();
  };
}
