import { describe, expect, it } from 'vitest';
import { ForbiddenAnswers } from './access-refusal.js';

/**
 * The judgement of plain 403s on its own (access-refusal.ts): which are taken as the order's (a locked-out patient)
 * and which as the environment refusing every request, and which held creates go back to the queue when a streak
 * turns out to be the environment's. The outbox tests reach the put-back only when answers interleave just so.
 */

const create = (id: number) => ({ id, kind: 'create' as const });
const lookup = (id: number) => ({ id, kind: 'lookup' as const });
const written = (nowMs: number) => ({ serviceWritten: true, refusedNow: false, nowMs });
const nobodyAnswered = () => false;

describe('ForbiddenAnswers', () => {
  it('takes a streak of different orders as the environment at the threshold, and puts back only the creates it held', () => {
    const answers = new ForbiddenAnswers(() => 3);
    expect(answers.judge(create(1), written(1), nobodyAnswered)).toEqual({ environment: false, requeue: [] });
    expect(answers.judge(lookup(2), written(2), nobodyAnswered)).toEqual({ environment: false, requeue: [] });
    expect(answers.byEnvironment(1)).toBe(false);
    // The third different order: every 403 of the streak was the environment's; the held create goes back.
    expect(answers.judge(create(3), written(3), nobodyAnswered)).toEqual({ environment: true, requeue: [1] });
    expect([1, 2, 3].map((id) => answers.byEnvironment(id))).toEqual([true, true, true]);
  });

  it("takes an order's own 403 as its own when it drew one before and others got through since", () => {
    const answers = new ForbiddenAnswers(() => 2);
    answers.judge(create(1), written(1), nobodyAnswered);
    answers.gotThrough(9);
    // Others were answered since its first 403, and no other order drew one: a locked-out patient, however often.
    for (const at of [10, 20, 30]) {
      expect(answers.judge(create(1), written(at), () => true)).toEqual({ environment: false, requeue: [] });
    }
    expect(answers.byEnvironment(1)).toBe(false);
  });

  it('takes a 403 the service did not write, or one while refused already, as the environment at once', () => {
    const answers = new ForbiddenAnswers(() => 5);
    const page = { serviceWritten: false, refusedNow: false, nowMs: 1 };
    expect(answers.judge(create(1), page, nobodyAnswered)).toEqual({ environment: true, requeue: [] });
    expect(answers.judge(create(2), { ...written(2), refusedNow: true }, nobodyAnswered).environment).toBe(true);
  });

  it('ends a streak when a request gets through, so earlier 403s do not add up with later ones', () => {
    const answers = new ForbiddenAnswers(() => 2);
    answers.judge(create(1), written(1), nobodyAnswered);
    answers.gotThrough(7);
    expect(answers.judge(create(2), written(2), nobodyAnswered)).toEqual({ environment: false, requeue: [] });
    answers.readGotThrough();
    expect(answers.judge(create(3), written(3), nobodyAnswered)).toEqual({ environment: false, requeue: [] });
    expect(answers.byEnvironment(2)).toBe(false);
  });
});
