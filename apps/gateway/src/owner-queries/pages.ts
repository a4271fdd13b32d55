/**
 * Every item of a list an owner answers in pages (a keyset: each page after the last item of the one before),
 * read page after page until a short one: a reply of the bus is one NATS message (max_payload: 1 MB by default),
 * so a list that may outgrow it is read this way while the HTTP answer stays whole (ADR 46). A list that fills its
 * pages exactly costs one more request, answered empty.
 */
export async function readAllPages<T>(
  pageSize: number,
  readPage: (limit: number, after: T | undefined) => Promise<T[]>,
): Promise<T[]> {
  const items: T[] = [];
  await forEachPage(pageSize, readPage, (page) => items.push(...page));
  return items;
}

/**
 * The same pages handed to `onPage` as they arrive, none kept: a caller that reduces each page (to JSON text, say)
 * holds one page of items at a time, not the whole list.
 */
export async function forEachPage<T>(
  pageSize: number,
  readPage: (limit: number, after: T | undefined) => Promise<T[]>,
  onPage: (page: T[]) => void,
): Promise<void> {
  for (let after: T | undefined; ;) {
    const page = await readPage(pageSize, after);
    onPage(page);
    if (page.length < pageSize) return;
    after = page[page.length - 1];
  }
}
