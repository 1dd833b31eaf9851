/**
 * Where a page lies in an ordered set of `totalItems`: how many to skip and read, in which direction.
 * A page in the second half is read from the other end, so cost follows the distance to the nearer
 * end (and the rows read are reversed back into the requested order).
 */
export function pageWindow(
  totalItems: number,
  query: { page: number; size: number },
  ascending: boolean,
): { skip: number; wanted: number; ascending: boolean; fromOtherEnd: boolean } | undefined {
  const offset = query.page * query.size;
  if (offset >= totalItems) return undefined;
  const wanted = Math.min(query.size, totalItems - offset);
  const fromOtherEnd = offset > totalItems - offset - wanted;
  return { skip: fromOtherEnd ? totalItems - offset - wanted : offset, wanted, ascending: fromOtherEnd ? !ascending : ascending, fromOtherEnd };
}
