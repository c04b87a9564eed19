// Terminal output as plain text for the chat: escape sequences (colours, cursor moves, titles) are removed, and a
// carriage return that redraws a line (progress bars) keeps only what the line shows last. Pure.

// CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \), other two-character escapes, and C1 CSI (0x9b).
// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g;
// Other control characters than tab, newline and carriage return.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001a\u001c-\u001f\u007f]/g;

export function plainTerminalText(raw: string): string {
  const text = raw.replace(ESCAPES, '').replace(CONTROLS, '').replace(/\r+\n/g, '\n');
  if (!text.includes('\r')) return text;
  return text
    .split('\n')
    .map((line) => line.slice(line.lastIndexOf('\r', line.length - 2) + 1).replace(/\r$/, ''))
    .join('\n');
}
