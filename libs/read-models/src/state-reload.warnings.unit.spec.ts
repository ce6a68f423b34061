import { StateReloadWarnings } from './state-reload.warnings.js';

describe('StateReloadWarnings', () => {
  it('warns on the first reload, then at most once a period with what happened since, naming the setting and its budget', () => {
    const said: string[] = [];
    let now = 1_000;
    const warnings = new StateReloadWarnings(64 * 1024 * 1024, (message) => said.push(message), () => now, 60_000);
    warnings.record(5_000);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^1 fold state\(s\) dropped to make room were loaded again, reading 5000 event\(s\) from the store: /);
    expect(said[0]).toContain('32 MB of fold state CHRONICLE_VIEW_CACHE_BYTES (64 MB)');
    now += 30_000;
    warnings.record(7_000);
    warnings.record(8_000);
    expect(said).toHaveLength(1);
    now += 30_000;
    warnings.record(1_000);
    expect(said).toHaveLength(2);
    expect(said[1]).toMatch(/^3 fold state\(s\) .* reading 16000 event\(s\) from the store in the last 60 s: /);
  });
});
