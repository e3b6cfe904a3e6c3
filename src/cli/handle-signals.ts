// Imported first by main.ts, the binary, for this one effect: stop signals are handled before the rest of
// the command line's code is even loaded (an ES module's imports run before its own code).
import { handleStopSignals } from './signals.js';

handleStopSignals();
