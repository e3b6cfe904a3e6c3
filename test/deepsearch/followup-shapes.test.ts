import { afterEach, describe, expect, it } from 'vitest';
import { askAndSettle, client, closeAll, emulator, FAST } from '../helpers/emulator.js';

afterEach(closeAll);

describe('legacy follow-up reply, both published shapes', () => {
  it.each(['question', 'conversation'] as const)('reads the new question from a %s reply', async (followUpReply) => {
    const e = await emulator({ ...FAST, legacy: { followUpReply } });
    const c = client(e, 'legacy');
    const { created } = await askAndSettle(c, 'Where is retryPolicy defined?');
    const added = await c.addQuestion(created.ref, 'Who calls it?');
    expect(added).toMatchObject({ text: 'Who calls it?', state: 'processing' });
    expect((await c.get(created.ref)).questions.map((q) => q.text)).toEqual(['Where is retryPolicy defined?', 'Who calls it?']);
  });
});
