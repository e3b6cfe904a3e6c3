import type { Block, Inline } from './document.js';
import type { ReportData } from './report-result.js';
import type { RunRecord } from '../store/queries.js';
import { capped, fmtInt, uncheckedLostCreates } from './tables.js';

// The report's warnings: what a reader must see before its figures. report.md shows them in place, the HTML
// page above its charts (reportWarnings, without building the rest of the document).

const MAX_LISTED = 20;

/** What a reader must see before the figures: a shard or partial merge, part of a plan, unfinished items, doubtful records. */
export const WARNING_SECTIONS: ReadonlyArray<(data: ReportData) => Block[]> = [splitBlocks, (data) => partOfPlan(data.run), confirmedBlocks, inProgressBlocks, anomalyBlocks, unownedBlocks, uncheckedBlocks];

/** The report's warnings as report.md words them (its callouts), without the rest of the document. */
export function reportWarnings(data: ReportData): Block[] {
  return WARNING_SECTIONS.flatMap((section) => section(data)).filter((b) => b.kind === 'callout');
}

/** A shard, or a run merged from shards (whole or partial). */
function splitBlocks(data: ReportData): Block[] {
  const split = data.run.split;
  if (!split) return [];
  const blocks: Block[] = [];
  const group = split.groupLabel === '' ? `run group ${split.groupId}` : `run group ${split.groupLabel} (${split.groupId})`;
  if (split.shardIndex === null && data.run.status === 'running') {
    blocks.push({ kind: 'callout', text: [{ strong: 'UNFINISHED MERGE' }, `: dsbench merge of ${group} is still copying its shards or was stopped while it did; this run holds only part of their items. Run the same dsbench merge again.`] });
  } else if (split.shardIndex !== null) {
    blocks.push({ kind: 'callout', text: [`Shard ${split.shardIndex}/${split.shardCount} of ${group}: this run holds only its share of the suite; dsbench merge joins the shards into one run.`] });
  } else if (split.partial) {
    const missing = Array.from({ length: split.shardCount }, (_, i) => i + 1).filter((i) => !split.shards.includes(i));
    blocks.push({
      kind: 'callout',
      text: [{ strong: 'PARTIAL' }, `: merged from shards ${split.shards.join(', ')} of ${split.shardCount} of ${group}; the items of shard${missing.length === 1 ? '' : 's'} ${missing.join(', ')} are not in this run.`],
    });
  } else {
    blocks.push({ kind: 'para', text: [`Merged from all ${split.shardCount} shards of ${group}.`] });
  }
  return blocks;
}

/** A run still running, or ended with items not done. */
/** A run confirmed later: its confirmations' items are theirs, never this run's. */
function confirmedBlocks(data: ReportData): Block[] {
  const confirmed = data.confirmations;
  if (confirmed.runs.length === 0) return [];
  return [{ kind: 'para', text: [`Confirmed by run ${confirmed.runs.join(', ')} (dsbench confirm): ${confirmed.items} items re-asked${confirmed.credits === null ? '' : `, ${confirmed.credits} credits`}, counted there and in none of this report's figures.`] }];
}

function inProgressBlocks(data: ReportData): Block[] {
  const blocks: Block[] = [];
  if (data.inProgress) {
    blocks.push({
      kind: 'callout',
      text: [
        data.run.status === 'running' ? 'This run is still running' : `This run ended (${data.run.status}) with items not done`,
        `: pending ${fmtInt(data.itemsPending)}, running ${fmtInt(data.itemsRunning)}. The figures cover what was recorded so far.`,
      ],
    });
  }
  return blocks;
}

/** Replies whose stats cannot be true. */
function anomalyBlocks(data: ReportData): Block[] {
  const blocks: Block[] = [];
  if (data.anomalies.length > 0) {
    const { shown, more } = capped(data.anomalies, MAX_LISTED);
    blocks.push({
      kind: 'callout',
      text: [
        `${fmtInt(data.anomalies.length)} ${data.anomalies.length === 1 ? 'reply' : 'replies'} gave stats that cannot be true; their stats are left out of every sum, mean and percentile: `,
        ...shown.flatMap((a, i): Inline[] => [i > 0 ? '; ' : '', { code: a.itemKey }, ` turn ${a.turn + 1}: ${a.anomalies.join(', ')}`]),
        more > 0 ? `; and ${fmtInt(more)} more` : '',
        '.',
      ],
    });
  }
  return blocks;
}

/** Conversations that ask the run's questions but belong to no item. */
function unownedBlocks(data: ReportData): Block[] {
  const blocks: Block[] = [];
  if (data.unowned.length > 0) {
    const { shown, more } = capped(data.unowned, MAX_LISTED);
    const n = data.unowned.length;
    blocks.push({
      kind: 'callout',
      text: [
        `${fmtInt(n)} ${n === 1 ? 'conversation asks' : 'conversations ask'} this run's questions but ${n === 1 ? 'belongs' : 'belong'} to no item: a create given up reached the server after all (its question was asked twice if its item asked it again); their credits are in no figure here: `,
        ...shown.flatMap((u, i): Inline[] => [i > 0 ? '; ' : '', { code: u.target }, ' ', { code: u.conversationRef }, ` (${u.text.length > 80 ? `${u.text.slice(0, 77)}...` : u.text})`]),
        more > 0 ? `; and ${fmtInt(more)} more` : '',
        '.',
      ],
    });
  }
  return blocks;
}

/** Creates given up that no end-of-run check looked for. */
function uncheckedBlocks(data: ReportData): Block[] {
  const blocks: Block[] = [];
  if (data.unchecked.length > 0) {
    blocks.push({
      kind: 'callout',
      text: [
        'Creates given up (their outcome unknown) that no end-of-run check looked for: one that reached the server after all would be a question asked twice that this report cannot show: ',
        ...data.unchecked.flatMap((row, i): Inline[] => [i > 0 ? '; ' : '', { code: row.target }, ` ${uncheckedLostCreates(row)}`]),
        '. An unfinished run checks them when resumed; otherwise ',
        { code: 'dsbench conversations list' },
        ' shows what the instance holds (docs/restarts.md).',
      ],
    });
  }
  return blocks;
}

/** A run of part of its suite (`--rerun-failed`, `--only`), or one that asked nothing, says so first. */
function partOfPlan(run: RunRecord): Block[] {
  const only = Array.isArray(run.options.only) ? (run.options.only as string[]).map((o) => `--only ${o}`).join(' ') : '';
  const blocks: Block[] = [];
  if (run.confirmOf !== null) blocks.push({ kind: 'para', text: [`A confirmation of run ${run.confirmOf} (dsbench confirm): questions re-asked to settle a comparison's gates, counted here and never as run ${run.confirmOf}'s.`] });
  if (run.rerunOf !== null) blocks.push({ kind: 'para', text: [`A rerun of run ${run.rerunOf}: its items that failed, erred or did not end${only ? `, narrowed by ${only}` : ''}.`] });
  else if (only) blocks.push({ kind: 'para', text: [`Part of the suite: ${only}.`] });
  if (run.nothingAsked) blocks.push({ kind: 'callout', text: ['Nothing was asked in this run: every item was skipped before it was sent. It is never the latest run of its label.'] });
  return blocks;
}

