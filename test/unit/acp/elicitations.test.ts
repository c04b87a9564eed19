import * as assert from 'node:assert/strict';
import { Elicitations, MAX_PENDING_ELICITATIONS } from '../../../src/acp/elicitations';
import { fieldValue, type ElicitationFieldView } from '../../../src/chat/protocol';
import { elicitationViews } from '../../../src/chat/elicitationViews';

const t = (message: string, ...args: Array<string | number>) => message.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)]));

describe('the agent\u2019s questions (elicitations)', () => {
  it('holds a question until the user answers, and settles each once', async () => {
    let changes = 0;
    const questions = new Elicitations(() => changes++);
    const asked = questions.ask({ message: 'Name?', form: { properties: {} } });
    assert.equal(questions.waiting, 1);
    const id = questions.all[0]!.id;
    assert.equal(questions.answer(id, { action: 'decline' }), true);
    assert.deepEqual(await asked, { action: 'decline' });
    assert.equal(questions.answer(id, { action: 'accept' }), false, 'answered already');
    assert.equal(questions.waiting, 0);
    assert.ok(changes >= 2);
  });

  it('keeps an opened url question until elicitation/complete, and cancels everything on a stop', async () => {
    const questions = new Elicitations(() => undefined);
    const url = questions.ask({ message: 'Sign in', url: { elicitationId: 'e1', url: 'https://example.com' } });
    const form = questions.ask({ message: 'More?', form: { properties: {} } });
    const [u] = questions.all;
    questions.answer(u!.id, { action: 'accept' });
    assert.deepEqual(await url, { action: 'accept' });
    assert.equal(questions.all.length, 2, 'the opened url question stays');
    assert.equal(questions.waiting, 1, 'but waits for the agent, not the user');
    assert.equal(questions.complete('e1'), true);
    assert.equal(questions.complete('e1'), false);
    questions.cancelAll();
    assert.deepEqual(await form, { action: 'cancel' });
  });

  it('answers cancel when the signal aborts, and declines past the bound', async () => {
    const questions = new Elicitations(() => undefined);
    const controller = new AbortController();
    const asked = questions.ask({ message: 'x', form: { properties: {} } }, controller.signal);
    controller.abort();
    assert.deepEqual(await asked, { action: 'cancel' });
    for (let i = 0; i < MAX_PENDING_ELICITATIONS; i++) void questions.ask({ message: `q${i}`, form: { properties: {} } });
    assert.deepEqual(await questions.ask({ message: 'one too many', form: { properties: {} } }), { action: 'decline' });
  });

  it('turns a schema into fields, and leaves out what it cannot show', () => {
    const [view] = elicitationViews([
      {
        id: 1,
        message: 'Set up',
        form: {
          required: ['n'],
          properties: {
            n: { type: 'integer', title: 'N', minimum: 1 },
            pick: { type: 'string', oneOf: [{ const: 'a', title: 'A' }] },
            odd: { type: 'object' } as never,
          },
        },
      },
    ]);
    assert.deepEqual(
      view?.form?.fields.map((f) => [f.name, f.kind, f.required]),
      [
        ['n', 'integer', true],
        ['pick', 'select', false],
      ],
    );
    assert.deepEqual(view?.form?.unsupported, ['odd']);
  });

  it('checks and types each field kind as its schema says', () => {
    const field = (over: Partial<ElicitationFieldView>): ElicitationFieldView => ({ name: 'f', label: 'F', required: false, kind: 'text', ...over });
    assert.deepEqual(fieldValue(t, field({ kind: 'integer' }), '3'), { value: 3 });
    assert.deepEqual(fieldValue(t, field({ kind: 'integer' }), '3.5'), { error: 'Enter a whole number.' });
    assert.deepEqual(fieldValue(t, field({ kind: 'number', minimum: 0, maximum: 1 }), '0.25'), { value: 0.25 });
    assert.deepEqual(fieldValue(t, field({ kind: 'number', maximum: 1 }), '2'), { error: 'Enter 1 or less.' });
    assert.deepEqual(fieldValue(t, field({ kind: 'boolean' }), true), { value: true });
    assert.deepEqual(fieldValue(t, field({ required: true }), ''), { error: 'This is required.' });
    assert.deepEqual(fieldValue(t, field({}), ''), {}, 'an empty optional field has no value');
    assert.deepEqual(fieldValue(t, field({ format: 'email' }), 'a@b.co'), { value: 'a@b.co' });
    assert.deepEqual(fieldValue(t, field({ format: 'uri' }), 'not a uri'), { error: 'Enter an address such as https://example.com.' });
    assert.deepEqual(fieldValue(t, field({ kind: 'select', options: [{ value: 'a', title: 'A' }] }), 'b'), { error: 'Pick from the list.' });
    assert.deepEqual(fieldValue(t, field({ kind: 'multiselect', options: [{ value: 'a', title: 'A' }], minItems: 1 }), []), {
      error: 'Pick at least 1.',
    });
    assert.deepEqual(fieldValue(t, field({ kind: 'multiselect', options: [{ value: 'a', title: 'A' }] }), ['a']), { value: ['a'] });
  });
});
