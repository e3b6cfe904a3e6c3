import { describe, expect, it } from 'vitest';
import { AskProgress } from '../../src/cli/ask-progress.js';
import type { Conversation } from '../../src/model/conversation.js';

const conversation = (state: string) => ({ questions: [{ state }] }) as unknown as Conversation;

function recorder(isTTY: boolean) {
  const writes: string[] = [];
  let t = 0;
  const clock = () => (t += 1500);
  return { writes, out: { isTTY, write: (s: string) => writes.push(s) }, clock };
}

describe('ask progress', () => {
  it('on a terminal: one line redrawn per poll, cleared before any message', () => {
    const r = recorder(true);
    const p = new AskProgress(r.out, 2, r.clock);
    p.sent(0);
    p.polled(0, conversation('processing'), 1);
    p.polled(0, conversation('processing'), 2);
    p.ended(0, 'completed');
    expect(r.writes).toEqual([
      'dsbench: turn 1 of 2: sent, waiting for the answer\n',
      '\r\x1b[2Kturn 1 of 2: processing for 1.5 s (1 polls)',
      '\r\x1b[2Kturn 1 of 2: processing for 3.0 s (2 polls)',
      '\r\x1b[2K',
      'dsbench: turn 1 of 2: completed after 4.5 s\n',
    ]);
  });

  it('elsewhere: a line per state change, none per poll', () => {
    const r = recorder(false);
    const p = new AskProgress(r.out, 1, r.clock);
    p.sent(0);
    for (let i = 1; i <= 5; i++) p.polled(0, conversation('processing'), i);
    p.polled(0, conversation('error'), 6);
    p.ended(0, 'error');
    expect(r.writes).toEqual(['dsbench: question: sent, waiting for the answer\n', 'dsbench: question: processing\n', 'dsbench: question: error after 1.5 s\n']);
  });
});
