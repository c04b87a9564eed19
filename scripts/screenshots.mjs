// `npm run screenshots`: refreshes the README's screenshots in docs/images/ from the UI tests that take them
// (test/ui/conversation.test.ts "shows a whole turn…", in the light and the dark theme; agents.test.ts "Select
// Agent…"; sessions.test.ts "shows each agent…"; registry.test.ts "installs an agent…"), which save them to test-output/ui/screenshots/. Only those tests
// run; when one fails, nothing is copied.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const taken = join(root, 'test-output', 'ui', 'screenshots');
const target = join(root, 'docs', 'images');
const SHOTS = ['conversation-light.png', 'conversation-dark.png', 'select-agent.png', 'sessions-view.png', 'add-agent-from-registry.png'];

rmSync(taken, { recursive: true, force: true }); // never copy an earlier run's pictures
const run = spawnSync('npm', ['run', 'test:ui'], {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    ACP_TEST_GREP: 'conversation UI shows a whole turn|agents UI Select Agent|sessions UI shows each agent|registry UI installs an agent',
  },
});
if (run.status !== 0) {
  console.error('screenshots: the UI test failed, so docs/images/ was left as it was');
  process.exit(1);
}
const missing = SHOTS.filter((name) => !existsSync(join(taken, name)));
if (missing.length > 0) {
  console.error(`screenshots: the UI test passed but did not save ${missing.join(', ')}; docs/images/ was left as it was`);
  process.exit(1);
}
mkdirSync(target, { recursive: true });
for (const name of SHOTS) {
  copyFileSync(join(taken, name), join(target, name));
  console.log(`screenshots: docs/images/${name} (${Math.round(statSync(join(target, name)).size / 1024)} KB)`);
}
