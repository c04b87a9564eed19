// Terminal output as plain text for the chat: escape sequences (colours, cursor moves, titles) are removed, and a
// carriage return that redraws a line (progress bars) keeps only what the line shows last. Pure.

// CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \), other two-character escapes, and C1 CSI (0x9b).
// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g;
// Other control characters than tab, newline and carriage return.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001a\u001c-\u001f\u007f]/g;

// Every step is linear in the input: the escape patterns cannot backtrack past the next ESC, and carriage returns are
// handled by index per line (a pattern like /\r+\n/ retries every start in a long run of \r: quadratic).
export function plainTerminalText(raw: string): string {
  const text = raw.replace(ESCAPES, '').replace(CONTROLS, '');
  if (!text.includes('\r')) return text;
  return text.split('\n').map(lastDrawn).join('\n');
}

/** What a line shows last: the text after its last carriage return, ignoring the ones it ends with. */
function lastDrawn(line: string): string {
  let end = line.length;
  while (end > 0 && line.charCodeAt(end - 1) === 13) end--;
  return line.slice(line.lastIndexOf('\r', end - 1) + 1, end);
}
