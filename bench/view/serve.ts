// The viewer in a process of its own, for the benchmark to measure: `node serve.js DB` prints the address on
// its first line and serves until SIGTERM.
import { startViewer } from '../../src/view/server.js';

const viewer = await startViewer({ db: process.argv[2]!, host: '127.0.0.1', port: 0 });
process.stdout.write(`${viewer.url}\n`);
process.once('SIGTERM', () => {
  void viewer.close().then(() => process.exit(0));
});
