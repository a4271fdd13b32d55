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
  for (let after: T | undefined; ;) {
    const page = await readPage(pageSize, after);
    items.push(...page);
    if (page.length < pageSize) return items;
    after = page[page.length - 1];
  }
}
