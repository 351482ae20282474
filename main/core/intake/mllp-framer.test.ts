import { describe, expect, it } from 'vitest';
import { MllpFramer, mllpFrame, type FrameEvent } from './mllp-framer.js';

const START = Buffer.of(0x0b);
const END = Buffer.of(0x1c);

const texts = (events: FrameEvent[]) =>
  events.map((event) => (event.kind === 'message' ? event.bytes.toString('latin1') : event.kind));

describe('MllpFramer', () => {
  it('ends a frame at 0x1C 0x0D, in one chunk or split between two', () => {
    const framer = new MllpFramer(1024);
    expect(texts(framer.push(Buffer.concat([mllpFrame('MSH|one'), mllpFrame('MSH|two')])))).toEqual([
      'MSH|one',
      'MSH|two',
    ]);
    expect(framer.push(Buffer.concat([START, Buffer.from('MSH|three'), END]))).toEqual([]);
    expect(framer.endPending).toBe(true);
    expect(texts(framer.push(Buffer.of(0x0d)))).toEqual(['MSH|three']);
    expect(framer.endPending).toBe(false);
  });

  it('ends a frame at a lone 0x1C followed by the next frame, in one chunk or across two', () => {
    const framer = new MllpFramer(1024);
    const lone = (text: string) => Buffer.concat([START, Buffer.from(text), END]);
    // Before, the first frame was dropped as abandoned when the second began.
    expect(texts(framer.push(Buffer.concat([lone('MSH|a'), lone('MSH|b'), mllpFrame('MSH|c')])))).toEqual([
      'MSH|a',
      'MSH|b',
      'MSH|c',
    ]);
    expect(framer.push(lone('MSH|d'))).toEqual([]);
    expect(texts(framer.push(mllpFrame('MSH|e')))).toEqual(['MSH|d', 'MSH|e']);
    expect(framer.inFrame).toBe(false);
  });

  it('ends a frame whose 0x1C came last only when asked (the peer sent nothing after it)', () => {
    const framer = new MllpFramer(1024);
    expect(framer.finishAtLoneEnd()).toBeUndefined();
    framer.push(Buffer.concat([START, Buffer.from('MSH|quiet'), END]));
    expect(texts([framer.finishAtLoneEnd()!])).toEqual(['MSH|quiet']);
    expect(framer.inFrame).toBe(false);
    expect(framer.finishAtLoneEnd()).toBeUndefined();
    // Nothing pending mid-frame: a frame without any 0x1C yet is not ended.
    framer.push(Buffer.concat([START, Buffer.from('MSH|half')]));
    expect(framer.endPending).toBe(false);
    expect(framer.finishAtLoneEnd()).toBeUndefined();
  });

  it('keeps a 0x1C followed by other bytes inside the message, and reports a frame cut by a new start', () => {
    const framer = new MllpFramer(1024);
    const events = framer.push(
      Buffer.concat([START, Buffer.from('MSH|x'), END, Buffer.from('y'), Buffer.of(0x0d), mllpFrame('MSH|z')]),
    );
    expect(texts(events)).toEqual(['abandoned', 'MSH|z']);
  });

  it('drops a frame over the size limit whole, a lone 0x1C end included', () => {
    const framer = new MllpFramer(8);
    framer.push(Buffer.concat([START, Buffer.from('MSH|too long for eight'), END]));
    expect(framer.finishAtLoneEnd()).toEqual({ kind: 'tooLarge', bytes: 'MSH|too long for eight'.length });
  });
});
