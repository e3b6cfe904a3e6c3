import type { RunResult } from '../runner/run.js';
import type { GroupShare } from '../runner/run-settings.js';

const round = (n: number): string => String(Math.round(n * 100) / 100);

/** Credits a run recorded: its items', and those of attempts stopped on an interruption; null when none were measured. */
export function creditsOf(result: Pick<RunResult, 'targets'>): number | null {
  const all = Object.values(result.targets).flatMap((t) => [t.credits, t.rerunAfterInterruption.credits]).filter((c): c is number => c !== null);
  return all.length === 0 ? null : all.reduce((a, b) => a + b, 0);
}

/** What a shard's summary says of its group's limits: its share of each total, and what it spent against them. */
export function groupShareText(group: GroupShare, result: Pick<RunResult, 'targets'>): string {
  const weight = `its questions weigh ${group.weight} of the plan's ${group.totalWeight} (asked turns)`;
  const lines: string[] = [];
  if (group.limits.concurrency !== undefined) lines.push(`  --group-concurrency ${group.limits.concurrency}: this shard asks ${group.concurrency} conversation${group.concurrency === 1 ? '' : 's'} at once per target`);
  if (group.limits.maxCredits !== undefined) {
    const spent = creditsOf(result);
    lines.push(
      `  --group-max-credits ${group.limits.maxCredits}: this shard's cap is ${round(group.maxCredits ?? 0)}; it spent ${spent === null ? 'no measured' : round(spent)} credits ` +
        `(${group.limits.maxCredits > 0 && spent !== null ? `${round((100 * spent) / group.limits.maxCredits)}% of the group's total` : 'of the group\'s total'}; dsbench merge reports the group's spend)`,
    );
  }
  return `Group limits, shared by weight (${weight}):\n${lines.join('\n')}\n`;
}
