import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { createClient, LegacyClient, type DeepSearchClient } from '../deepsearch/index.js';
import { withoutSecrets, type Conversation } from '../model/conversation.js';
import { UsageError } from '../errors/errors.js';
import { DEFAULT_API, transportSettings, type GlobalArgs } from './global-options.js';
import { conversationLink, formatQuestion } from './format.js';
import { openTarget } from './target.js';
import { commandUsage } from './command-usage.js';
import type { CommandContext } from './io.js';

interface ListArgs extends GlobalArgs {
  pageSize?: number | undefined;
  sort?: string | undefined;
  userId?: number | undefined;
  id?: string | undefined;
  starred?: boolean | undefined;
  query?: string | undefined;
  limit?: number | undefined;
}

interface RefArgs extends GlobalArgs {
  ref?: string | undefined;
  question?: string | undefined;
  byReadToken?: boolean | undefined;
}

/** Opens the target and a client, runs `work`, and closes both whatever happens. */
async function withClient(cli: CommandContext, argv: GlobalArgs, work: (client: DeepSearchClient) => Promise<void>): Promise<void> {
  const target = await openTarget(argv.endpoint, cli);
  const client = createClient(target.connection, argv.api ?? DEFAULT_API, transportSettings(argv));
  try {
    await work(client);
  } finally {
    await client.close();
    await target.close();
  }
}

function print(cli: CommandContext, argv: GlobalArgs, json: unknown, text: string): void {
  cli.stdout.write(argv.json ? `${JSON.stringify(json, null, 2)}\n` : text);
}

/** Tab-separated like the rows under it, so `cut -f` and spreadsheets still read the output. */
const LIST_HEADER = 'conversation\tstate\tupdated\ttitle';

const list = (cli: CommandContext): CommandModule<GlobalArgs, ListArgs> => ({
  command: 'list',
  describe: 'List conversations over all pages',
  builder: (y: Argv<GlobalArgs>) =>
    y
      .option('page-size', { type: 'number', describe: 'Conversations per request' })
      .option('sort', { type: 'string', describe: 'Legacy: id, -id, created_at, -created_at, updated_at, -updated_at' })
      .option('user-id', { type: 'number', describe: 'Legacy: only this user' })
      .option('id', { type: 'string', describe: 'Legacy: only this conversation id' })
      .option('starred', { type: 'boolean', describe: 'Only starred (or, with --no-starred, unstarred) conversations' })
      .option('query', { type: 'string', describe: 'Versioned: only conversations whose content matches' })
      .option('limit', { type: 'number', describe: 'Stop after this many conversations' })
      .check((argv) => {
        if (argv.pageSize != null && !(Number.isInteger(argv.pageSize) && Number(argv.pageSize) > 0)) throw new UsageError('--page-size must be a positive integer');
        if (argv.limit !== undefined && !(Number.isInteger(argv.limit) && argv.limit > 0)) throw new UsageError('--limit must be a positive integer');
        return true;
      }) as unknown as Argv<ListArgs>,
  handler: (argv: ArgumentsCamelCase<ListArgs>) =>
    withClient(cli, argv, async (client) => {
      const rows = [];
      for await (const summary of client.list({
        ...(argv.pageSize !== undefined && { pageSize: argv.pageSize }),
        ...(argv.sort !== undefined && { sort: argv.sort }),
        ...(argv.userId !== undefined && { userId: argv.userId }),
        ...(argv.id !== undefined && { id: argv.id }),
        ...(argv.starred !== undefined && { starred: argv.starred }),
        ...(argv.query !== undefined && { contentQuery: argv.query }),
      })) {
        rows.push(summary);
        if (argv.limit !== undefined && rows.length >= argv.limit) break;
      }
      const text = `${LIST_HEADER}\n` + rows.map((r) => `${r.ref}\t${r.state ?? ''}\t${r.updatedAt ?? ''}\t${r.title ?? ''}\n`).join('');
      print(cli, argv, rows, rows.length > 0 ? text : 'No conversations.\n');
    }),
});

const show = (cli: CommandContext): CommandModule<GlobalArgs, RefArgs> => ({
  command: 'show [ref]',
  describe: 'Show a conversation (legacy: by read token from DSBENCH_READ_TOKEN with --by-read-token)',
  builder: (y: Argv<GlobalArgs>) =>
    y
      .positional('ref', { type: 'string', describe: 'Conversation id (legacy) or name (versioned)' })
      .option('by-read-token', { type: 'boolean', describe: 'Legacy: read the conversation shared by the read token in DSBENCH_READ_TOKEN' }) as unknown as Argv<RefArgs>,
  handler: (argv: ArgumentsCamelCase<RefArgs>) =>
    withClient(cli, argv, async (client) => {
      let conversation: Conversation;
      if (argv.byReadToken) {
        const token = cli.env.DSBENCH_READ_TOKEN;
        if (!token) throw new UsageError('--by-read-token reads the token from DSBENCH_READ_TOKEN, which is not set');
        if (!(client instanceof LegacyClient)) throw new UsageError('reading by read token needs --api legacy');
        conversation = await client.getByReadToken(token);
      } else {
        if (!argv.ref) throw new UsageError('give a conversation id or name, or --by-read-token');
        conversation = await client.get(argv.ref);
      }
      const safe = withoutSecrets(conversation);
      const text = `Conversation ${safe.ref} (${safe.api} API), ${safe.state}${safe.title ? `: ${safe.title}` : ''}\n${conversationLink(conversation)}` + safe.questions.map((q) => formatQuestion(q)).join('');
      print(cli, argv, safe, text);
    }),
});

const cancel = (cli: CommandContext): CommandModule<GlobalArgs, RefArgs> => ({
  command: 'cancel <ref>',
  describe: 'Cancel what is processing in a conversation',
  builder: (y: Argv<GlobalArgs>) =>
    y
      .positional('ref', { type: 'string', demandOption: true })
      .option('question', { type: 'string', describe: 'Legacy: the question id to cancel (default: the one processing)' }) as unknown as Argv<RefArgs>,
  handler: (argv: ArgumentsCamelCase<RefArgs>) =>
    withClient(cli, argv, async (client) => {
      await client.cancel(argv.ref as string, argv.question);
      print(cli, argv, { ref: argv.ref, canceled: true }, `Cancelled ${argv.ref}\n`);
    }),
});

const remove = (cli: CommandContext): CommandModule<GlobalArgs, RefArgs> => ({
  command: 'delete <ref>',
  describe: 'Delete a conversation',
  builder: (y: Argv<GlobalArgs>) => y.positional('ref', { type: 'string', demandOption: true }) as unknown as Argv<RefArgs>,
  handler: (argv: ArgumentsCamelCase<RefArgs>) =>
    withClient(cli, argv, async (client) => {
      await client.delete(argv.ref as string);
      print(cli, argv, { ref: argv.ref, deleted: true }, `Deleted ${argv.ref}\n`);
    }),
});

export const conversationsCommand = (cli: CommandContext): CommandModule<GlobalArgs, GlobalArgs> => ({
  ...commandUsage.conversations,
  builder: (y: Argv<GlobalArgs>) =>
    y.command(list(cli)).command(show(cli)).command(cancel(cli)).command(remove(cli)).demandCommand(1, 'Give an action: list, show, cancel or delete.'),
  handler: () => {},
});
