import type { Block, Inline } from './document.js';
import { type RunQuality, formatEstimate } from './quality.js';
import { capped, fmtInt, fmtPct, plural } from './tables.js';

const MAX_FLAKY = 50;

/** Answer quality with intervals, pass^k and the flaky questions, per target (docs/statistics.md). */
export function qualityBlocks(q: RunQuality): Block[] {
  const shown = q.targets.filter((t) => t.passRate.value !== null || t.judgeScore.value !== null || t.quarantined.length > 0);
  if (shown.length === 0) return [];
  const level = Math.round(q.confidence * 100);
  const blocks: Block[] = [
    { kind: 'heading', level: 2, text: ['Quality and consistency'] },
    {
      kind: 'para',
      text: [
        `Rates with ${level}% intervals that resample questions (a question with all its repeats at once); pass^k is the chance that k repeats of a question all pass, pass@k that one of them does (unbiased estimators, k the fewest repeats). A question is flaky when its repeats disagreed.`,
      ],
    },
    {
      kind: 'table',
      table: {
        headers: ['target', 'questions', 'pass rate', 'k', 'pass^k', 'pass@k', 'judge score', 'citation validity', 'flaky', 'quarantined'],
        align: ['left', 'right', 'left', 'right', 'left', 'left', 'left', 'left', 'right', 'right'],
        rows: shown.map((t) => [
          t.target,
          fmtInt(t.passRate.clusters),
          formatEstimate(t.passRate, q.confidence),
          String(t.k),
          t.k > 1 ? formatEstimate(t.passHatK, q.confidence) : '–',
          t.k > 1 ? formatEstimate(t.passAtK, q.confidence) : '–',
          formatEstimate(t.judgeScore, q.confidence, false),
          formatEstimate(t.citationValidity, q.confidence),
          fmtInt(t.flaky.length),
          fmtInt(t.quarantined.length),
        ]),
      },
    },
  ];
  const flaky = q.questions.filter((x) => x.label === 'flaky' || x.quarantined);
  if (flaky.length > 0) {
    const { shown: listed, more } = capped(flaky, MAX_FLAKY);
    blocks.push({
      kind: 'list',
      items: listed.map((x): Inline[] => [
        { code: `${x.target}/${x.id}` },
        ` ${x.label === 'flaky' ? 'flaky' : 'stable'}${x.quarantined ? ', quarantined (no gate judges it)' : ''}: ${x.passed} of ${plural(x.repeats, 'repeat')} passed, flip rate ${fmtPct(x.flipRate)}`,
      ]),
    });
    if (more > 0) blocks.push({ kind: 'para', text: [`… and ${fmtInt(more)} more (quality in report.json).`] });
  }
  return blocks;
}
