// The real adapters the agents layer runs, pinned: the harness installs exactly these into its cache, and
// `npm run agents:latest` says which have newer releases. Bump a version here, run `npm run test:agents`, and note in
// docs/agents.md what changed.
export const AGENT_PINS: Readonly<Record<string, string>> = {
  '@agentclientprotocol/claude-agent-acp': '0.101.0',
  '@agentclientprotocol/codex-acp': '2.6.0',
};
