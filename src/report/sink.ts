import { writeWhole } from './whole-file.js';

// Every file `report` and `compare` write is made by a sink: told each row as the command streams them
// (if it wants rows), then the finished result. The commands pick their sinks by name from a map over this
// one type (as vitest's reporters), so a new output is a new class and a new name, not a new code path.

/** One output of a report: a CSV export, JUnit XML, an HTML page, a Markdown or JSON file. */
export interface ReportSink<Row, Result> {
  /** The files it writes, in order (known before anything is written: the summaries list them). */
  readonly files: readonly string[];
  /** Each row, in the order the command streams them. Sinks that read what they need in a pass of their own have none. */
  row?(row: Row): void;
  /** The result is known: write the output, or finish writing it. */
  end(result: Result): void | Promise<void>;
  /** After a failure: let go of what the sink holds (an open file). */
  abandon?(): void;
}

/** A sink's class, made from the options every sink of a command shares. */
export type SinkClass<Options, Sink> = new (options: Options) => Sink;

/** Sinks by name; a loader each, so an output's modules load only when it is asked for. */
export type SinkMap<Name extends string, Options, Sink> = Record<Name, () => Promise<SinkClass<Options, Sink>>>;

/** Makes the named sinks, in the map's order (which is the order of the files they list); none stays open if one fails. */
export async function openSinks<Name extends string, Options, Sink extends ReportSink<never, unknown>>(map: SinkMap<Name, Options, Sink>, names: ReadonlySet<Name>, options: Options): Promise<Sink[]> {
  const sinks: Sink[] = [];
  try {
    for (const name of Object.keys(map) as Name[]) if (names.has(name)) sinks.push(new (await map[name]())(options));
  } catch (error) {
    abandonSinks(sinks);
    throw error;
  }
  return sinks;
}

/** The rows' way to every sink that takes rows. */
export function rowsTo<Row>(sinks: ReadonlyArray<ReportSink<Row, unknown>>): ((row: Row) => void) | undefined {
  const takers = sinks.filter((s) => s.row !== undefined);
  if (takers.length === 0) return undefined;
  return (row) => {
    for (const s of takers) s.row!(row);
  };
}

/** Ends every sink in order; if one fails, the others let go of what they hold, and the failure is thrown. */
export async function endSinks<Result>(sinks: ReadonlyArray<ReportSink<never, Result>>, result: Result): Promise<void> {
  let i = 0;
  try {
    for (; i < sinks.length; i++) await sinks[i]!.end(result);
  } catch (error) {
    abandonSinks(sinks.slice(i + 1));
    throw error;
  }
}

export function abandonSinks(sinks: ReadonlyArray<ReportSink<never, unknown>>): void {
  for (const s of sinks) s.abandon?.();
}

/** The Markdown file of the document a command also prints (report.md, compare.md). */
export class MarkdownFile implements ReportSink<unknown, { markdown: string }> {
  readonly files: string[];

  constructor(file: string) {
    this.files = [file];
  }

  end(result: { markdown: string }): void {
    writeWhole(this.files[0]!, result.markdown);
  }
}
