import { spawn } from 'node:child_process';
import type { Argv, CommandModule } from 'yargs';
import { UsageError } from '../errors/errors.js';
import { DEFAULT_DB } from '../report/open.js';
import { registerSecret } from '../redact.js';
import { startViewer } from '../view/server.js';
import { commandUsage } from './command-usage.js';
import { type GlobalArgs, pathOption } from './global-options.js';
import type { CommandContext } from './io.js';
import { onStopSignal } from './signals.js';

export interface ViewArgs {
  db: string;
  port: number;
  host: string;
  token?: string | undefined;
  open?: boolean | undefined;
}

export const DEFAULT_VIEW_PORT = 4180;
const TOKEN_ENV = 'DSBENCH_VIEW_TOKEN';

/** Opens `url` in the desktop's browser, when there is one; the viewer runs either way. */
function openBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // No browser to open: the address is printed.
  }
}

export const viewCommand = (cli: CommandContext): CommandModule<GlobalArgs, ViewArgs & GlobalArgs> => ({
  ...commandUsage.view,
  builder: (y: Argv<GlobalArgs>) =>
    y
      .option('db', { type: 'string', default: DEFAULT_DB, describe: 'Results database to show (opened read-only)', ...pathOption(cli) })
      .option('port', { type: 'number', default: DEFAULT_VIEW_PORT, describe: 'Port to listen on (0: any free port)' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to listen on; anything but loopback needs --token' })
      .option('token', { type: 'string', describe: `Token every request must carry off loopback (or ${TOKEN_ENV}); open the printed address once with ?token=` })
      .option('open', { type: 'boolean', describe: 'Open the viewer in the default browser' }) as unknown as Argv<ViewArgs & GlobalArgs>,
  handler: async (argv) => {
    if (!(Number.isInteger(argv.port) && argv.port >= 0 && argv.port <= 65535)) throw new UsageError('--port must be a whole number from 0 to 65535');
    const token = argv.token ?? cli.env[TOKEN_ENV] ?? undefined;
    if (token !== undefined && token.length < 16) throw new UsageError(`the viewer's token (--token or ${TOKEN_ENV}) must have 16 characters or more`);
    if (token !== undefined) registerSecret(token);
    const viewer = await startViewer({ db: argv.db, host: argv.host, port: argv.port, token });
    cli.stdout.write(`dsbench view: ${argv.db}, read-only, at ${viewer.url}/${token ? ' (open it once with ?token=<token>)' : ''}\nStop with Ctrl-C.\n`);
    if (argv.open) openBrowser(`${viewer.url}/`);
    let release = (): void => {};
    await new Promise<void>((resolve) => {
      release = onStopSignal(() => resolve());
    });
    release();
    await viewer.close();
  },
});
