// Chromium through playwright-core, always with a browser already on the machine (never a downloaded one).
import { mkdirSync } from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';

/** Flags that keep headless Chromium quiet on a machine with a closed network. */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export async function launchBrowser(executablePath: string, profileDir: string): Promise<BrowserContext> {
  mkdirSync(profileDir, { recursive: true });
  return chromium.launchPersistentContext(profileDir, {
    executablePath,
    headless: true,
    args: FLAGS,
    viewport: { width: 1440, height: 900 },
  });
}
