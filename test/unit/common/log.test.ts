// The log's bounds: repeated warnings are counted instead of written, and every line is cut at the sink, so an agent
// that floods us with bad messages costs a few short lines.
import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { capLength, kindOf, limitRepeats, MAX_LOG_LINE_CHARS } from '../../../src/acp/log';
import { SecretScrubber } from '../../../src/acp/redact';
import { channelLogger } from '../../../src/common/log';
import { RecordingLogger } from '../lib/recording-logger';

/** Resolves when `condition` holds; fails after `ms`. */
async function until(condition: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A LogOutputChannel that keeps what it is given, at level Info. */
function fakeChannel(): { channel: vscode.LogOutputChannel; lines: string[] } {
  const lines: string[] = [];
  const keep = (message: string) => void lines.push(message);
  const channel = { logLevel: 3, trace: keep, debug: keep, info: keep, warn: keep, error: keep } as unknown as vscode.LogOutputChannel;
  return { channel, lines };
}

describe('repeated warnings', () => {
  it('are grouped by their text after the tags, up to the first colon', () => {
    assert.equal(kindOf('[transport Gemini] [session 3f2a…] skipped a line that is not JSON: "{x"'), 'skipped a line that is not JSON');
    assert.equal(kindOf(`${'a'.repeat(100)}: x`), 'a'.repeat(60));
    assert.equal(kindOf('[never closed tag'), '[never closed tag');
    assert.equal(
      kindOf('refused request "8" of 3 sessions: x'),
      kindOf('refused request "a:b" of 12 sessions: y'),
      'names and numbers do not make a kind',
    );
  });

  it('pass five of a kind per window and then one line with the count, whatever the tags say', () => {
    const sink = new RecordingLogger();
    const log = limitRepeats(sink, { windowMs: 60_000 });
    for (let i = 0; i < 100_000; i++) log.warn(`[session s${i}] update for an unknown session: ${i}`);
    log.warn('[transport] skipped a line that is not JSON: x');
    log.error('[session s1] update for an unknown session: as an error');
    for (let i = 0; i < 10; i++) log.info(`[trace] → request #${i}`);
    assert.equal(sink.find('unknown session', 'warn').length, 5);
    assert.equal(sink.find('not JSON').length, 1, 'another kind has its own count');
    assert.equal(sink.find('as an error', 'error').length, 1, 'and so has another level');
    assert.equal(sink.find('[trace]', 'info').length, 10, 'info lines are not limited');
    log.dispose();
    assert.deepEqual(sink.find('more like this'), [{ level: 'warn', message: '…and 99,995 more like this: update for an unknown session' }]);
  });

  it('write the count when the window closes, and then let lines through again', async () => {
    const sink = new RecordingLogger();
    const log = limitRepeats(sink, { windowMs: 30 });
    for (let i = 0; i < 8; i++) log.warn(`[session s${i}] update for an unknown session: ${i}`);
    assert.equal(sink.lines.length, 5);
    await until(() => sink.lines.length > 5);
    assert.equal(sink.lines.at(-1)?.message, '…and 3 more like this: update for an unknown session');
    log.warn('[session s9] update for an unknown session: after the window');
    assert.equal(sink.find('after the window').length, 1);
    log.dispose();
  });

  it('write the count on the next line of the kind if the window closed before the timer ran, and on dispose', () => {
    const sink = new RecordingLogger();
    // The clock moves past the window without the event loop turning, so the timer cannot have run.
    let now = 1_000;
    const log = limitRepeats(sink, { windowMs: 20, perWindow: 1, now: () => now });
    log.warn('busy: 1');
    log.warn('busy: 2');
    now += 25;
    log.warn('busy: 3');
    assert.deepEqual(
      sink.lines.map((l) => l.message),
      ['busy: 1', '…and 1 more like this: busy', 'busy: 3'],
    );
    log.warn('busy: 4');
    log.dispose();
    assert.equal(sink.lines.at(-1)?.message, '…and 1 more like this: busy');
  });

  it('track a bounded number of kinds, writing the count of one they forget', () => {
    const sink = new RecordingLogger();
    const log = limitRepeats(sink, { perWindow: 1, maxKinds: 2 });
    log.warn('a: 1');
    log.warn('a: 2');
    log.warn('b: 1');
    log.warn('c: 1'); // forgets a, the least recently seen
    assert.deepEqual(
      sink.lines.map((l) => l.message),
      ['a: 1', 'b: 1', '…and 1 more like this: a', 'c: 1'],
    );
    log.warn('a: 3');
    assert.equal(sink.lines.at(-1)?.message, 'a: 3', 'a is a new kind again');
    log.dispose();
  });
});

describe('the ACP channel', () => {
  it('cuts long lines, after scrubbing secrets even where the cut falls', () => {
    const { channel, lines } = fakeChannel();
    const scrubber = new SecretScrubber();
    const secret = 'sk-live-0123456789abcdef';
    scrubber.learn([{ name: 'OPENAI_API_KEY', value: secret }]);
    const recent: string[] = [];
    const log = channelLogger(channel, { scrubber, recent: { push: (l) => void recent.push(l) } });
    const message = `${'x'.repeat(MAX_LOG_LINE_CHARS - 5)}${secret}${'y'.repeat(50 * 1024 * 1024)}`;
    log.info(message);
    const [line] = lines;
    assert.ok(line !== undefined && line.length < MAX_LOG_LINE_CHARS + 100, `${line?.length} chars`);
    assert.ok(!line.includes(secret.slice(0, 5)), 'no part of the secret');
    assert.match(line, /… \([\d,]+ more characters\)$/);
    assert.ok((recent[0]?.length ?? Infinity) < MAX_LOG_LINE_CHARS + 200, 'the recent lines get the cut line');
    log.dispose();
  });

  it('rate-limits a flood of warnings: five lines in the channel, whatever the flood', async () => {
    const { channel, lines } = fakeChannel();
    const log = channelLogger(channel);
    // Its cost per line is the benchmarks' to measure; what a flood leaves in the channel is this.
    for (let i = 0; i < 200_000; i++) log.warn(`[transport A] skipped a line that is not JSON: "${i}"`);
    assert.equal(lines.length, 5);
    log.dispose();
    assert.equal(lines.at(-1), '…and 199,995 more like this: skipped a line that is not JSON');
  });
});

describe('capLength', () => {
  it('keeps short text, cuts long text with a count, and never splits a surrogate pair', () => {
    assert.equal(capLength('abc', 3), 'abc');
    assert.equal(capLength('abcdef', 3), 'abc… (3 more characters)');
    assert.equal(capLength('ab😀', 3), 'ab… (2 more characters)');
    assert.equal(capLength('abc', 10, 1000), 'abc… (1,000 more characters)');
  });
});
