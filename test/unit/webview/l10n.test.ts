import * as assert from 'node:assert/strict';
import { imageRefusal, HostMessage, INITIAL_PARTS } from '../../../src/chat/protocol';
import { setBundle, t } from '../../../webview/l10n';
import { renderMarkdown } from '../../../webview/markdown';

describe('webview translations', () => {
  afterEach(() => setBundle(undefined));

  it('without a bundle, a message is its English text with the placeholders filled in', () => {
    assert.equal(t('Show earlier messages ({0})', 12), 'Show earlier messages (12)');
    assert.equal(t('{0} asks permission — {1}:', 'Codex', 'Run command'), 'Codex asks permission — Run command:');
    assert.equal(t('Stopped.'), 'Stopped.');
  });

  it('uses the host’s bundle entry for a message, placeholders in the translation’s order', () => {
    setBundle({ '{0} asks permission — {1}:': '{1} : {0} demande la permission', 'Stopped.': 'Arrêté.' });
    assert.equal(t('{0} asks permission — {1}:', 'Codex', 'Exécuter'), 'Exécuter : Codex demande la permission');
    assert.equal(t('Stopped.'), 'Arrêté.');
    assert.equal(t('Working…'), 'Working…', 'a message the bundle lacks stays English');
  });

  it('goes back to English when the next state has no bundle', () => {
    setBundle({ Send: 'Envoyer' });
    assert.equal(t('Send'), 'Envoyer');
    setBundle(undefined);
    assert.equal(t('Send'), 'Send');
  });

  it('translates the shared image refusal and the code buttons', () => {
    setBundle({ 'The image is {0} MB; images up to {1} MB can be attached.': "L'image fait {0} Mo, {1} Mo au plus.", 'Copy {0}': 'Copier <{0}>' });
    assert.equal(imageRefusal(t, 'image/png', 2 * 1024 * 1024, 1024 * 1024), "L'image fait 2.0 Mo, 1 Mo au plus.");
    assert.match(renderMarkdown('```ts\nx\n```'), /aria-label="Copier &lt;ts&gt;"/, 'a translation is escaped in markup');
  });

  it('carries the bundle in the state message, and only strings', () => {
    const state = {
      type: 'state',
      agent: 'A',
      earlier: [],
      entries: [],
      ...INITIAL_PARTS,
      session: { plan: [], commands: [], pickers: [], notices: [], accepts: { image: false, embeddedContext: false } },
      attachments: [],
      checkpoints: { cards: [], restorable: [] },
    };
    assert.equal(HostMessage.safeParse({ ...state, l10n: { Send: 'Envoyer' } }).success, true);
    assert.equal(HostMessage.safeParse({ ...state, l10n: { Send: 1 } }).success, false);
    assert.equal(HostMessage.safeParse(state).success, true);
  });
});
