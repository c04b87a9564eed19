// Continue with Another Agent…, in a real extension host: a new chat with the agent picked, the conversation so far
// attached (embedded for an agent that takes embedded context, else a link to the export), and a brief in the
// composer that is never sent by itself.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import { waitFor } from '../lib/wait';
import { api, closeAllChats, newChat, recorded, useFixtureAgents } from './lib/fixture';

interface Block {
  type: string;
  text?: string;
  uri?: string;
  resource?: { uri: string; text: string };
}

function lastPrompt(recordFile: string): Block[] {
  const prompts = recorded(recordFile).filter((m) => m.method === 'session/prompt');
  return (prompts.at(-1)?.params?.['prompt'] ?? []) as Block[];
}

describe('hand off', function () {
  this.timeout(60_000);

  afterEach(async () => {
    await closeAllChats();
  });

  it('continues a chat with another agent: the conversation attached, embedded or linked as the agent takes it, and a brief never sent by itself', async () => {
    const setups = await useFixtureAgents({
      First: { scenario: 'echo' },
      Embeds: { scenario: 'echo' },
      Links: { scenario: 'read-links', env: { ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify({ promptCapabilities: {} }) } },
    });
    const first = await newChat('First');
    assert.equal(await first.send('Plan the **release**'), 'end_turn');

    const handTo = async (agent: string, target?: { agent: string; sessionId: string }) => {
      const next = await vscode.commands.executeCommand<ChatHandle | undefined>('acp.continueWithAgent', target, agent);
      assert.ok(next, `a chat with ${agent}`);
      await waitFor(() => next.sessionId !== undefined && next.attachments.length === 1, { what: `the chat with ${agent} and its attachment` });
      assert.match(next.attachments[0]!.label, /Conversation with First/);
      assert.match(next.draft, /conversation with First about/);
      assert.equal(recorded(setups[agent]!.recordFile).filter((m) => m.method === 'session/prompt').length, 0, 'nothing sent by itself');
      assert.equal(await next.send(next.draft), 'end_turn');
      return lastPrompt(setups[agent]!.recordFile);
    };

    const embedded = (await handTo('Embeds')).find((b) => b.type === 'resource');
    assert.ok(embedded?.resource, 'the conversation embedded');
    assert.match(embedded.resource.text, /## You\n\nPlan the \*\*release\*\*/);
    assert.match(embedded.resource.text, /You said: Plan the \*\*release\*\*/);

    // The first chat again, named as the Sessions view names it.
    const linked = (await handTo('Links', { agent: 'First', sessionId: first.sessionId! })).find((b) => b.type === 'resource_link');
    assert.ok(linked?.uri, 'the conversation linked');
    const exported = readFileSync(fileURLToPath(linked.uri), 'utf8');
    assert.match(exported, /Plan the \*\*release\*\*/);
    // The export is outside the workspace, but the user linked it: the agent reads it without a question.
    const links = await api();
    const said = [...links.chats.at(-1)!.entries].reverse().find((e) => e.kind === 'message');
    assert.ok(said?.kind === 'message');
    assert.match(said.text, /^Read [^:]+: # /, 'the agent read the linked conversation');
  });
});
