import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import 'reflect-metadata';
import { CommandBus, QueryBus } from '@nestjs/cqrs';

/**
 * Issue 11 item 9: every use case goes through the command or query bus, so no controller holds the writer,
 * the store, the pool, the views or a registry. The exceptions are transports, not use cases, each for a
 * stated reason.
 */
const TRANSPORTS: Readonly<Record<string, string>> = {
  HealthController: 'probes the pool itself (terminus); no use case',
  MetricsController: 'serves the Prometheus registry',
  LiveController: 'an SSE subscription to the live hub, re-rendering through the views on each change',
};

function controllerFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return controllerFiles(path);
    return name.endsWith('.controller.ts') ? [path] : [];
  });
}

const nameOf = (dependency: unknown): string =>
  typeof dependency === 'function' ? dependency.name : typeof dependency === 'symbol' ? dependency.toString() : String(dependency);

async function controllers(): Promise<{ file: string; name: string; dependencies: string[] }[]> {
  const found = [];
  for (const file of controllerFiles('apps/session-api/src')) {
    const module = (await import(pathToFileURL(join(process.cwd(), file)).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (typeof value !== 'function' || Reflect.getMetadata('path', value) === undefined) continue;
      const types: unknown[] = Reflect.getMetadata('design:paramtypes', value) ?? [];
      // `@Inject(TOKEN)` parameters: their tokens replace the declared types.
      const injected: { index: number; param: unknown }[] = Reflect.getMetadata('self:paramtypes', value) ?? [];
      const dependencies = types.map((type, index) => nameOf(injected.find((i) => i.index === index)?.param ?? type));
      found.push({ file: relative(process.cwd(), file), name, dependencies });
    }
  }
  return found;
}

describe('controllers', () => {
  it('are all found (the scan is not empty)', async () => {
    expect((await controllers()).map((c) => c.name)).toEqual(
      expect.arrayContaining(['IngestionController', 'SessionQueriesController', 'LivenessController', 'RecoveryController', 'AuditController']),
    );
  });

  it('depend on the command and query buses only, transports aside', async () => {
    const buses = new Set([CommandBus.name, QueryBus.name]);
    const offenders = (await controllers())
      .filter((c) => !(c.name in TRANSPORTS))
      .flatMap((c) => c.dependencies.filter((d) => !buses.has(d)).map((d) => `${c.file}: ${c.name} injects ${d}`));
    expect(offenders).toEqual([]);
  });
});
