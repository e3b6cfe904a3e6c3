import type { ChangeKind, NotifyNight, NotifyPayload } from './payload.js';
import { NOTIFY_SCHEMA_VERSION } from './payload.js';

/** What changed from the previous night to tonight: the verdict's colour, and questions newly flaky. */
export function changesBetween(previous: NotifyNight, tonight: NotifyNight): { changes: ChangeKind[]; newFlaky: string[] } {
  const changes: ChangeKind[] = [];
  if (previous.verdict !== tonight.verdict) changes.push(tonight.verdict === 'red' ? 'green-to-red' : 'red-to-green');
  const before = new Set(previous.flaky);
  const newFlaky = tonight.flaky.filter((q) => !before.has(q));
  if (newFlaky.length > 0) changes.push('new-flaky');
  return { changes, newFlaky };
}

/** Slack's mrkdwn gives &, < and > meaning; a label or question id is shown as written. */
const slackEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const runName = (n: NotifyNight) => `run ${n.runId}${n.label ? ` "${n.label}"` : ''}`;

/** Most questions a message names; the rest are counted. */
const MAX_NAMED = 10;

export function changeText(suite: string, previous: NotifyNight, tonight: NotifyNight, changes: readonly ChangeKind[], newFlaky: readonly string[]): string {
  const parts: string[] = [];
  if (changes.includes('green-to-red')) parts.push(`went red: ${runName(tonight)} exit ${tonight.exitCode}, ${runName(previous)} passed`);
  if (changes.includes('red-to-green')) parts.push(`went green: ${runName(tonight)} passed, ${runName(previous)} exit ${previous.exitCode}`);
  if (changes.includes('new-flaky')) {
    const named = newFlaky.slice(0, MAX_NAMED).join(', ') + (newFlaky.length > MAX_NAMED ? ` and ${newFlaky.length - MAX_NAMED} more` : '');
    parts.push(`${newFlaky.length} question${newFlaky.length === 1 ? '' : 's'} newly flaky in ${runName(tonight)}: ${named}`);
  }
  return slackEscape(`dsbench: suite ${suite} ${parts.join('; ')}`);
}

export function changePayload(suite: string, targets: string[], previous: NotifyNight, tonight: NotifyNight): NotifyPayload | undefined {
  const { changes, newFlaky } = changesBetween(previous, tonight);
  if (changes.length === 0) return undefined;
  return {
    schemaVersion: NOTIFY_SCHEMA_VERSION,
    event: 'verdict-changed',
    suite,
    targets,
    changes,
    tonight,
    previous,
    newFlaky,
    text: changeText(suite, previous, tonight, changes, newFlaky),
  };
}
