// The Markdown report of "ACP: Test Agent Connection…": what the agent said about itself, or why it did not connect.
import type { AgentClient } from '../acp/agentClient';
import { isTerminalAuth } from '../acp/authStatus';
import type { AgentConfig } from '../settings/config';
import { failureText } from '../common/failureText';

/** The Markdown a connection test shows: what the agent is, or why it did not connect. */
export function connectionReport(
  agent: AgentConfig,
  outcome: { client: AgentClient; elapsed: number; stderr: readonly string[] } | { error: unknown; stderr: readonly string[] },
): { ok: boolean; text: string } {
  const lines = [`# ${agent.name}: connection test`, ''];
  const envNames = Object.keys(agent.env);
  if (agent.url !== undefined) {
    const host = 'client' in outcome ? outcome.client.process.host : undefined;
    lines.push(`- URL: \`${agent.command}\`${host ? ` (host ${host})` : ''}`, `- Commands on this machine: ${agent.terminals ? 'allowed' : 'off'}`);
  } else {
    lines.push(`- Command: \`${[agent.command, ...agent.args].join(' ')}\`${envNames.length ? ` (environment: ${envNames.join(', ')})` : ''}`);
  }
  if (agent.preset) lines.push('- A built-in preset');
  if (agent.installed) lines.push(`- Installed from the ACP Registry: ${agent.installed.id} ${agent.installed.version}`);
  if ('client' in outcome) {
    const init = outcome.client.initialized;
    const info = init.agentInfo;
    lines.push(
      `- Result: connected in ${outcome.elapsed} ms`,
      `- Agent: ${info ? `${info.title ?? info.name} (${info.name}) ${info.version}` : 'no agentInfo'}`,
      `- Protocol version: ${init.protocolVersion}`,
      '',
      '## Capabilities',
      '',
      '```json',
      JSON.stringify(init.agentCapabilities ?? {}, null, 2),
      '```',
      '',
      '## Sign-in methods',
      '',
    );
    const methods = init.authMethods ?? [];
    if (methods.length === 0) lines.push('None.');
    for (const m of methods) {
      const how = isTerminalAuth(m) ? ` (in a terminal: \`${[agent.command, ...agent.args, ...(m.args ?? [])].join(' ')}\`)` : '';
      lines.push(`- ${m.name} (\`${m.id}\`)${how}${m.description ? `: ${m.description}` : ''}`);
    }
  } else {
    lines.push(`- Result: **failed**: ${failureText(outcome.error)}`);
  }
  lines.push('', '## Standard error', '');
  if (outcome.stderr.length === 0) lines.push('Nothing.');
  else lines.push('```text', ...outcome.stderr.slice(-40), '```');
  return { ok: 'client' in outcome, text: `${lines.join('\n')}\n` };
}
