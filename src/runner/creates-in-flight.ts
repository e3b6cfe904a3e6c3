/**
 * Creates of one target whose reply has not come back yet, by question text. A lookup that finds an
 * unclaimed conversation with its text cannot tell it from one of these (repeats of a question share the
 * text): it waits until those in flight when it saw the conversation have settled and claimed theirs.
 */
export class CreatesInFlight {
  private readonly byText = new Map<string, Set<Promise<void>>>();

  /** Marks a create of `text` as in flight; call the returned function once it settled and its conversation, if any, is claimed. */
  begin(text: string): () => void {
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    let set = this.byText.get(text);
    if (!set) this.byText.set(text, (set = new Set()));
    set.add(settled);
    return () => {
      set.delete(settled);
      if (set.size === 0 && this.byText.get(text) === set) this.byText.delete(text);
      settle();
    };
  }

  /** Resolves once every create of `text` in flight now has settled. */
  async settled(text: string): Promise<void> {
    const now = this.byText.get(text);
    if (now) await Promise.all([...now]);
  }
}
