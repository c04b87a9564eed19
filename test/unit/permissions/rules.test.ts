import * as assert from 'node:assert/strict';
import type * as S from '../../../src/acp/schema.gen';
import type { Translate } from '../../../src/chat/protocol';
import { describeRule, english } from '../../../src/permissions/ruleText';
import { optionFor, parseStoredRules, PermissionRules, ruleFromAnswer, type PermissionRule, type RuleStore } from '../../../src/permissions/rules';

function memoryStore(): RuleStore & { saved: Record<string, readonly PermissionRule[]> } {
  const saved: Record<string, readonly PermissionRule[]> = { workspace: [], global: [] };
  return { saved, load: (scope) => saved[scope] ?? [], save: async (scope, rules) => void (saved[scope] = rules) };
}

const OPTIONS: S.PermissionOption[] = [
  { optionId: 'once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'always', name: 'Always Allow', kind: 'allow_always' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
];
const NOW = new Date('2026-11-22T10:00:00Z');
const tests = { agent: 'Gemini', kind: 'execute' as const, title: 'npm test' };

describe('permission rules', () => {
  it('only "always" answers make rules; a command rule names the command, other kinds do not', () => {
    assert.equal(ruleFromAnswer(tests, OPTIONS[0]!, NOW), undefined);
    assert.deepEqual(ruleFromAnswer(tests, OPTIONS[1]!, NOW), {
      agent: 'Gemini',
      kind: 'execute',
      title: 'npm test',
      decision: 'allow',
      created: NOW.toISOString(),
    });
    assert.deepEqual(
      ruleFromAnswer({ agent: 'Gemini', kind: 'edit', title: 'Edit a.ts' }, { optionId: 'x', name: 'Never', kind: 'reject_always' }, NOW),
      {
        agent: 'Gemini',
        kind: 'edit',
        decision: 'reject',
        created: NOW.toISOString(),
      },
    );
  });

  it('answers with the matching option: "always" first, then "once"; none means ask', () => {
    assert.equal(optionFor(OPTIONS, 'allow')?.optionId, 'always');
    assert.equal(
      optionFor(
        OPTIONS.filter((o) => o.kind !== 'allow_always'),
        'allow',
      )?.optionId,
      'once',
    );
    assert.equal(optionFor(OPTIONS, 'reject')?.optionId, 'no');
    assert.equal(
      optionFor(
        OPTIONS.filter((o) => o.kind.startsWith('allow')),
        'reject',
      ),
      undefined,
    );
  });

  it('matches by agent, kind and command; a session rule wins over a workspace one, which wins over a global one', async () => {
    const store = memoryStore();
    const rules = new PermissionRules(store);
    const allow = ruleFromAnswer(tests, OPTIONS[1]!, NOW)!;
    await rules.add(allow, 'global', 's1');
    assert.equal(rules.find(tests, 's1')?.scope, 'global');
    assert.equal(rules.find({ ...tests, title: 'rm -rf /' }, 's1'), undefined, 'another command is not covered');
    assert.equal(rules.find({ ...tests, agent: 'Codex' }, 's1'), undefined, 'another agent is not covered');
    await rules.add({ ...allow, decision: 'reject' }, 'workspace', 's1');
    assert.equal(rules.find(tests, 's1')?.decision, 'reject');
    await rules.add(allow, 'session', 's1');
    assert.deepEqual([rules.find(tests, 's1')?.scope, rules.find(tests, 's2')?.scope], ['session', 'workspace']);
    // Another agent's session with the same id keeps its own rule when this one closes.
    const codex = { ...tests, agent: 'Codex' };
    await rules.add({ ...allow, agent: 'Codex' }, 'session', 's1');
    rules.forgetSession('s1', tests.agent);
    assert.equal(rules.find(tests, 's1')?.scope, 'workspace');
    assert.equal(rules.find(codex, 's1')?.scope, 'session', 'the other agent\u2019s rule for its session of the same id stays');
  });

  it('replaces a rule for the same thing in the same scope, lists every rule and revokes one', async () => {
    const store = memoryStore();
    const rules = new PermissionRules(store);
    const allow = ruleFromAnswer(tests, OPTIONS[1]!, NOW)!;
    await rules.add(allow, 'workspace', 's');
    await rules.add({ ...allow, decision: 'reject' }, 'workspace', 's');
    await rules.add({ agent: 'Gemini', kind: 'read', decision: 'allow', created: '' }, 'session', 's');
    assert.deepEqual(
      rules.list().map((r) => [r.scope, describeRule(r, english)]),
      [
        ['session', 'Always allow Gemini: reading files'],
        ['workspace', 'Always reject Gemini: running \u201cnpm test\u201d'],
      ],
    );
    await rules.revoke(rules.list()[1]!);
    assert.deepEqual(store.saved['workspace'], []);
    assert.equal(rules.find(tests, 's'), undefined);
  });

  it('holds facts only: the host words a rule in the user\u2019s language, and in English for the log', () => {
    const words: Record<string, string> = {
      'Always allow {0}: {1}': 'Toujours autoriser {0} : {1}',
      'reading files': 'lire des fichiers',
      'running \u201c{0}\u201d': 'lancer \u00ab {0} \u00bb',
    };
    const french: Translate = (message, ...args) => english(words[message] ?? message, ...args);
    const read: PermissionRule = { agent: 'Gemini', kind: 'read', decision: 'allow', created: '' };
    assert.equal(describeRule(read, french), 'Toujours autoriser Gemini : lire des fichiers');
    assert.equal(describeRule({ ...read, kind: 'execute', title: 'npm test' }, french), 'Toujours autoriser Gemini : lancer \u00ab npm test \u00bb');
    assert.equal(describeRule({ ...read, decision: 'reject' }, english), 'Always reject Gemini: reading files');
  });

  it('drops stored rules that are not well formed', () => {
    assert.deepEqual(parseStoredRules('nope'), []);
    assert.deepEqual(
      parseStoredRules([
        null,
        { agent: 'A', kind: 'read' },
        { agent: 'A', kind: 'read', decision: 'maybe' },
        { agent: 'A', kind: 'execute', title: 3, decision: 'allow' },
      ]),
      [],
    );
    assert.deepEqual(parseStoredRules([{ agent: 'A', kind: 'read', decision: 'allow', created: 'x', extra: 1 }]), [
      { agent: 'A', kind: 'read', decision: 'allow', created: 'x' },
    ]);
  });
});
