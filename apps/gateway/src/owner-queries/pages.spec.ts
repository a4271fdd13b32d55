import { describe, expect, it, jest } from '@jest/globals';
import { forEachPage, readAllPages } from './pages.js';

/** A keyset list of `count` items n0…n(count-1), answered page by page as the owners answer theirs. */
function list(count: number) {
  const all = Array.from({ length: count }, (_, i) => ({ n: i }));
  const readPage = jest.fn((limit: number, after: { n: number } | undefined) =>
    Promise.resolve(all.slice(after === undefined ? 0 : after.n + 1).slice(0, limit)),
  );
  return { all, readPage };
}

describe('readAllPages', () => {
  it('asks once for a list shorter than a page', async () => {
    const { all, readPage } = list(3);
    expect(await readAllPages(10, readPage)).toEqual(all);
    expect(readPage.mock.calls).toEqual([[10, undefined]]);
  });

  it('reads page after page, each after the last item of the one before, until a short page', async () => {
    const { all, readPage } = list(27);
    expect(await readAllPages(10, readPage)).toEqual(all);
    expect(readPage.mock.calls.map(([limit, after]) => [limit, after?.n])).toEqual([
      [10, undefined],
      [10, 9],
      [10, 19],
    ]);
  });

  it('asks one more page, empty, when the list fills its pages exactly', async () => {
    const { all, readPage } = list(20);
    expect(await readAllPages(10, readPage)).toEqual(all);
    expect(readPage).toHaveBeenCalledTimes(3);
  });

  it('answers an empty list after one request', async () => {
    const { readPage } = list(0);
    expect(await readAllPages(10, readPage)).toEqual([]);
    expect(readPage).toHaveBeenCalledTimes(1);
  });
});

describe('forEachPage', () => {
  it('hands over each page as it arrives, the last one short, and keeps none', async () => {
    const { all, readPage } = list(25);
    const pages: { n: number }[][] = [];
    await forEachPage(10, readPage, (page) => pages.push(page));
    expect(pages.map((page) => page.length)).toEqual([10, 10, 5]);
    expect(pages.flat()).toEqual(all);
  });
});
