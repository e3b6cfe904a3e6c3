import { redact } from '../redact.js';
import { terminalSafe } from '../terminal-text.js';
import type { RunEvent, RunEventData, RunObserver } from './events.js';

/**
 * The one place a run's events fan out to its observers: each event goes to every observer in turn, in the
 * order emitted. An observer that throws is detached (it sees no later event) and the others are told so in
 * a log event; the run goes on, since everything observed is recorded by the recorder, not by observers.
 */
export class RunEvents {
  private observers: RunObserver[];

  constructor(observers: readonly RunObserver[]) {
    this.observers = [...observers];
  }

  emit(data: RunEventData): void {
    if (this.observers.length === 0) return;
    // The literal each caller builds is the event: no copy per poll.
    const event = data as RunEvent;
    event.at = Date.now();
    for (const observer of this.observers) {
      try {
        observer.onEvent(event);
      } catch (error) {
        this.detach(observer, event, error);
      }
    }
  }

  /** A message for whoever watches, redacted and without terminal control characters. */
  log(message: string): void {
    this.emit({ type: 'log', message: terminalSafe(redact(message)) });
  }

  private detach(observer: RunObserver, event: RunEvent, error: unknown): void {
    this.observers = this.observers.filter((o) => o !== observer);
    const why = error instanceof Error ? error.message : String(error);
    this.log(`run observer ${observer.name ?? '(unnamed)'} failed on a ${event.type} event and sees no more of this run: ${why}`);
  }
}
