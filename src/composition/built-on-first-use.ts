/**
 * `build()`'s object, built when one of its members is first used rather than now. For an adapter
 * that names a resource only some paths of a function touch: the extraction service of a read route
 * holds its Step Functions executions, which only a start uses, and that route's row (rightly) names
 * no state machine, so its function has no ARN to build them with. Deployed and local alike, such a
 * function fails only if it ever takes that path, naming the variable it lacks.
 */
export function builtOnFirstUse<Built extends object>(build: () => Built): Built {
  let built: Built | undefined;
  const target = () => (built ??= build());
  return new Proxy({} as Built, {
    get(_, property) {
      const value = Reflect.get(target(), property) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target()) : value;
    },
    has: (_, property) => Reflect.has(target(), property),
  });
}
