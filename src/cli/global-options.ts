import type { Argv } from 'yargs';

/** Options every command takes. */
export function globalOptions<T>(y: Argv<T>) {
  return y
    .option('endpoint', {
      type: 'string',
      describe: 'Base URL of the instance (default: SRC_ENDPOINT; with neither, the embedded emulator)',
      global: true,
    })
    .option('api', {
      choices: ['legacy', 'versioned'] as const,
      default: 'versioned' as const,
      describe: 'Deep Search API flavour',
      global: true,
    })
    .option('json', { type: 'boolean', default: false, describe: 'Print JSON instead of text', global: true });
}

export interface GlobalArgs {
  endpoint?: string | undefined;
  api: 'legacy' | 'versioned';
  json: boolean;
}
