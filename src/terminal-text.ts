// Server text is untrusted: printed raw, an escape sequence sets the window title (OSC 0), writes the
// clipboard (OSC 52), moves the cursor or rewrites lines already printed. Every terminal output and report.md
// passes server text through here.

/**
 * Whole escape sequences, 7-bit (ESC ...) and 8-bit (C1 CSI, OSC, DCS, SOS, PM, APC): a string sequence runs
 * to BEL or ST, a control sequence to its final byte. Removed whole, not only their first byte, so no
 * half of one (`]52;c;...`) is left to read.
 */
// eslint-disable-next-line no-control-regex
const SEQUENCE = /(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?|\x1b[ -/]*[0-~]?/g;
/** C0 and C1 controls but newline and tab, and DEL. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** `text` without escape sequences or control characters but newline and tab. */
export function terminalSafe(text: string): string {
  return text.replace(SEQUENCE, '').replace(CONTROL, '');
}

/**
 * JSON for a terminal: JSON.stringify escapes C0 controls but writes C1 ones (U+0080-U+009F, a CSI among them)
 * raw; these are escaped too, so the JSON reads the same.
 */
export function terminalJson(json: string): string {
  // eslint-disable-next-line no-control-regex
  return json.replace(/[\x7f-\x9f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
