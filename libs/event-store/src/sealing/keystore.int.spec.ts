import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyStoreError, keyringFromSettings } from './keystore.js';

/** A key store that cannot be opened says which one, and where its URL came from, never with the password. */
describe('opening the key store', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'chronicle-keystore-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const masterKey = randomBytes(32).toString('base64');

  it('names CHRONICLE_KEYSTORE_URL and the server when that one does not answer', async () => {
    const opened = keyringFromSettings({ encryption: true, masterKey, dataDir, keystoreUrl: 'postgres://chronicle:hunter2@127.0.0.1:1/keys' }, 'postgres://x@127.0.0.1:5/events');
    await expect(opened).rejects.toThrow(KeyStoreError);
    const message = await opened.catch((error: Error) => error.message);
    expect(message).toMatch(/^the key store at postgres:\/\/chronicle:\*\*\*@127\.0\.0\.1:1\/keys \(CHRONICLE_KEYSTORE_URL\) could not be opened: .*ECONNREFUSED/);
    expect(message).not.toContain('hunter2');
  });

  it('names the default one, beside the events database, when no URL was given', async () => {
    const opened = keyringFromSettings({ encryption: true, masterKey, dataDir }, 'postgres://chronicle:hunter2@127.0.0.1:1/events');
    await expect(opened).rejects.toThrow(/^the key store at postgres:\/\/chronicle:\*\*\*@127\.0\.0\.1:1\/events_keys \(the default, beside the events' database\) could not be opened: /);
  });

  it('opens nothing when content is stored plain', async () => {
    await expect(keyringFromSettings({ encryption: false, dataDir }, 'postgres://x@127.0.0.1:1/events')).resolves.toBeNull();
  });
});
