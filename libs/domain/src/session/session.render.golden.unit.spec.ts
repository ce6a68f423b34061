// Golden files are fixtures on disk: this test, not the domain code, reads them.
// eslint-disable-next-line no-restricted-imports
import { readdirSync, readFileSync } from 'node:fs';
import { canonicalJson } from '../canonical/canonical-json.js';
import { parseSessionEvent } from '../events/parse-session-event.js';
import { projectSession } from './session.render.js';

const goldenDir = new URL('./golden/', import.meta.url);
const sessions = readdirSync(goldenDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('golden sessions', () => {
  it('exist', () => {
    expect(sessions.length).toBeGreaterThanOrEqual(3);
  });

  it.each(sessions)('%s renders its expected display byte for byte', (name) => {
    const read = (file: string): string => readFileSync(new URL(`${name}/${file}`, goldenDir), 'utf8');
    const events = (JSON.parse(read('given.events.json')) as unknown[]).map(parseSessionEvent);
    expect(`${canonicalJson(projectSession(events).display)}\n`).toBe(read('expected.display.json'));
  });
});
