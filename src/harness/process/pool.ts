// A bounded pool for work that waits on processes: lives, kill points, whole runs. Shared by every
// tier whose lives are processes and by the explorer that drives them.

/**
 * Runs `work` over `items` with at most `limit` in flight, results in input order. When one fails,
 * no new item starts; the error of the earliest failing item is thrown once the others under way
 * have settled, so the error reported does not depend on timing.
 */
export async function inPool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  const errors = new Map<number, unknown>();
  let next = 0;
  async function worker(): Promise<void> {
    while (next < items.length && errors.size === 0) {
      const i = next++;
      try {
        results[i] = await work(items[i]!);
      } catch (error) {
        errors.set(i, error);
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (errors.size > 0) throw errors.get(Math.min(...errors.keys()));
  return results;
}
