import { describe, expect, it } from 'vitest';
import { BatchPages, type BatchPage } from './batch-pages.js';
import { stagedOrderAt } from './testing/staged-order-view.js';

const order = (position: number) => stagedOrderAt(position);

/** A batch of `total` orders served a page at a time, recording each request. */
function server(total: number) {
  const requests: Array<{ offset: number; limit: number }> = [];
  const fetch = (offset: number, limit: number) => {
    requests.push({ offset, limit });
    const orders = [];
    for (let i = offset; i < Math.min(total, offset + limit); i += 1) orders.push(order(i + 1));
    return Promise.resolve({ batch: { total }, orders, total });
  };
  return { requests, fetch };
}

describe('BatchPages: the preview grid window onto a staged batch', () => {
  it('fetches only the pages a range covers, once each, and serves orders by position', async () => {
    const { requests, fetch } = server(100_000);
    const pages = new BatchPages(fetch, { pageSize: 50 });
    await Promise.all([pages.ensure(0, 120), pages.ensure(10, 60)]);
    expect(requests).toEqual([
      { offset: 0, limit: 50 },
      { offset: 50, limit: 50 },
      { offset: 100, limit: 50 },
    ]);
    expect(pages.total).toBe(100_000);
    expect(pages.get(0)?.clinicOrderId).toBe('O-1');
    expect(pages.get(149)?.clinicOrderId).toBe('O-150');
    expect(pages.get(150)).toBeUndefined();
    await pages.ensure(99_990, 99_999);
    expect(requests.at(-1)).toEqual({ offset: 99_950, limit: 50 });
    expect(pages.get(99_999)?.clinicOrderId).toBe('O-100000');
  });

  it('keeps only the most recently used pages, so a long scroll never holds the whole batch', async () => {
    const { requests, fetch } = server(10_000);
    const pages = new BatchPages(fetch, { pageSize: 10, maxPages: 3 });
    for (const start of [0, 100, 200, 300]) await pages.ensure(start, start + 9);
    expect(pages.loaded()).toHaveLength(30);
    expect(pages.get(0)).toBeUndefined(); // evicted: the oldest
    await pages.ensure(0, 9);
    expect(requests.filter((r) => r.offset === 0)).toHaveLength(2);
  });

  it('puts an edited order in place and tells subscribers; a failed page is reported, then retried', async () => {
    let fail = true;
    const pages = new BatchPages((offset, limit) => {
      if (fail) return Promise.reject(new Error('offline'));
      return Promise.resolve({ batch: {}, orders: [order(offset + 1), order(offset + 2)].slice(0, limit), total: 2 });
    });
    let heard = 0;
    pages.subscribe(() => (heard += 1));
    await pages.ensure(0, 1);
    expect((pages.error as Error).message).toBe('offline');
    fail = false;
    await pages.ensure(0, 1);
    expect(pages.error).toBeUndefined();
    const edited = { ...order(2), edited: true };
    pages.replace(edited);
    expect(pages.get(1)).toBe(edited);
    expect(heard).toBe(3);
  });

  it('fetches what the grid has in view a few pages at a time, never pages it has scrolled past', async () => {
    // A server whose answers wait until the test releases them, as over a busy bridge.
    const requests: number[] = [];
    const waiting: Array<() => void> = [];
    const fetch = (offset: number) => {
      requests.push(offset);
      return new Promise<BatchPage<object>>((resolve) => {
        waiting.push(() => resolve({ batch: {}, orders: [order(offset + 1)], total: 100_000 }));
      });
    };
    const pages = new BatchPages(fetch, { pageSize: 50, maxInFlight: 2 });
    const answerNext = async () => {
      waiting.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 0));
    };

    pages.want(0, 199); // four pages in view: two are asked for at once
    expect(requests).toEqual([0, 50]);
    pages.want(0, 199); // the same view again asks for nothing more
    expect(requests).toEqual([0, 50]);

    // The scrollbar is dragged far away before anything came back, then further still.
    pages.want(20_000, 20_049);
    pages.want(40_000, 40_049);
    await answerNext();
    // The freed slot goes to where the grid is now; 100, 150 and 20,000 are never asked for.
    expect(requests).toEqual([0, 50, 40_000]);
    await answerNext();
    await answerNext();
    expect(requests).toEqual([0, 50, 40_000]);
    expect(pages.get(40_000)?.position).toBe(40_001);

    // Reading on from there: the next page only.
    pages.want(40_000, 40_060);
    expect(requests).toEqual([0, 50, 40_000, 40_050]);
  });

  it('asks for a failed page again only when the grid asks again (a dead bridge is not hammered)', async () => {
    let calls = 0;
    const pages = new BatchPages(() => {
      calls += 1;
      return Promise.reject(new Error('offline'));
    });
    pages.want(0, 10);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(calls).toBe(1);
    expect((pages.error as Error).message).toBe('offline');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(calls).toBe(1);
    pages.want(0, 10);
    expect(calls).toBe(2);
  });

  it('drops answers that arrive after it was disposed', async () => {
    let release: () => void = () => undefined;
    const pages = new BatchPages(
      () =>
        new Promise<BatchPage<object>>((resolve) => {
          release = () => resolve({ batch: {}, orders: [order(1)], total: 1 });
        }),
    );
    const loading = pages.ensure(0, 0);
    pages.dispose();
    release();
    await loading;
    expect(pages.get(0)).toBeUndefined();
  });

  it('refreshes in place after a change under it: old rows stay shown until their new copy, then are replaced', async () => {
    let version = 1;
    const requests: number[] = [];
    const pages = new BatchPages(
      (offset, limit) => {
        requests.push(offset);
        const orders = [];
        for (let i = offset; i < Math.min(100, offset + limit); i += 1) {
          orders.push({ ...order(i + 1), clinicOrderId: `V${version}-${i + 1}` });
        }
        return Promise.resolve({ batch: {}, orders, total: 100 });
      },
      { pageSize: 10 },
    );
    await pages.ensure(0, 19);
    expect(requests).toEqual([0, 10]);
    version = 2;
    pages.refresh();
    // Nothing in view was wanted yet: the old copies stay, and nothing is asked until the grid wants it.
    expect(pages.get(0)?.clinicOrderId).toBe('V1-1');
    pages.want(0, 9);
    expect(pages.get(0)?.clinicOrderId).toBe('V1-1');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(pages.get(0)?.clinicOrderId).toBe('V2-1');
    expect(requests).toEqual([0, 10, 0]);
    // Once fresh, a page is not asked again; the other stays stale until it is wanted.
    pages.want(0, 19);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(requests).toEqual([0, 10, 0, 10]);
    expect(pages.get(15)?.clinicOrderId).toBe('V2-16');
    pages.want(0, 19);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(requests).toHaveLength(4);
  });
});
