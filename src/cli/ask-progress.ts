import type { Conversation } from '../model/conversation.js';

// What `ask` shows while it waits, on stderr: on a terminal one line redrawn at every poll (turn, state,
// time so far); otherwise (CI logs, pipes) one line per state change, never a line per poll.

export interface ProgressOut {
  write(text: string): unknown;
  isTTY?: boolean | undefined;
}

/** Said once, by ended(), with the time it took. */
const FINAL: ReadonlySet<string> = new Set(['completed', 'error', 'canceled']);

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export class AskProgress {
  private lastState: string | undefined;
  private drawn = false;
  private startedAt = 0;

  constructor(
    private readonly out: ProgressOut,
    private readonly turns: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  private label(index: number): string {
    return this.turns > 1 ? `turn ${index + 1} of ${this.turns}` : 'question';
  }

  /** The turn's request went out. */
  sent(index: number): void {
    this.startedAt = this.now();
    this.lastState = undefined;
    this.line(index, 'sent, waiting for the answer');
  }

  /** A poll saw the conversation. */
  polled(index: number, conversation: Conversation, polls: number): void {
    const state = conversation.questions[index]?.state ?? 'processing';
    if (this.out.isTTY) {
      this.out.write(`\r\x1b[2K${this.label(index)}: ${state} for ${seconds(this.now() - this.startedAt)} (${polls} polls)`);
      this.drawn = true;
    } else if (state !== this.lastState && !FINAL.has(state)) {
      this.line(index, state);
    }
    this.lastState = state;
  }

  /** The turn ended (or was given up on). */
  ended(index: number, state: string): void {
    this.line(index, `${state} after ${seconds(this.now() - this.startedAt)}`);
  }

  private line(index: number, text: string): void {
    // A terminal line being redrawn is cleared first, so the message never lands inside it.
    if (this.drawn) this.out.write('\r\x1b[2K');
    this.drawn = false;
    this.out.write(`dsbench: ${this.label(index)}: ${text}\n`);
  }
}
