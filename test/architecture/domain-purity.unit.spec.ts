import { ESLint } from 'eslint';

/** The dependency rule of eslint.config.js: libs/domain stays pure. */
async function lintAsDomainFile(code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: process.cwd() });
  const [result] = await eslint.lintText(code, { filePath: 'libs/domain/src/probe.ts' });
  return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('libs/domain dependency rule', () => {
  it.each([
    ["import { Injectable } from '@nestjs/common';", 'no frameworks'],
    ["import { DataSource } from 'typeorm';", 'no frameworks'],
    ["import pg from 'pg';", 'no frameworks'],
    ["import { readFileSync } from 'node:fs';", 'no node IO'],
    ["import { request } from 'http';", 'no node IO'],
    ["import { PostgresEventStore } from '#event-store';", 'another lib'],
    ["import { x } from '../../../apps/session-api/src/main.js';", 'outside itself'],
  ])('rejects %s', async (line, reason) => {
    const messages = await lintAsDomainFile(`${line}\nexport const probe = 1;\n`);
    expect(messages.join('\n')).toContain(reason);
  });

  it('rejects the clock, randomness and env', async () => {
    const messages = await lintAsDomainFile('export const t = [Date.now(), Math.random(), process.env.X, new Date()];\n');
    expect(messages.filter((m) => m.includes('libs/domain is pure'))).toHaveLength(4);
  });

  it('accepts pure code and node:crypto', async () => {
    const messages = await lintAsDomainFile("import { createHash } from 'node:crypto';\nexport const h = createHash;\n");
    expect(messages).toEqual([]);
  });
});

describe('libs never import apps', () => {
  it.each(['libs/read-models/src/probe.int.spec.ts', 'libs/recovery/src/probe.ts', 'libs/session-commands/src/probe.ts'])(
    'rejects an app import in %s',
    async (filePath) => {
      const eslint = new ESLint({ cwd: process.cwd() });
      const code = "import { LiveHub } from '../../../apps/session-api/src/live/live-hub.js';\nexport const probe = LiveHub;\n";
      const [result] = await eslint.lintText(code, { filePath });
      expect(result.messages.map((m) => m.message).join('\n')).toContain('a lib may not import an app');
    },
  );

  it('accepts a lib importing another lib', async () => {
    const eslint = new ESLint({ cwd: process.cwd() });
    const [result] = await eslint.lintText("import { decide } from '#domain';\nexport const probe = decide;\n", {
      filePath: 'libs/session-commands/src/probe.ts',
    });
    expect(result.messages).toEqual([]);
  });
});

describe('the HTTP layer is Fastify', () => {
  it.each(['apps/session-api/src/probe.ts', 'libs/platform/src/probe.ts'])('rejects an Express import in %s', async (filePath) => {
    const eslint = new ESLint({ cwd: process.cwd() });
    const code = "import { ExpressAdapter } from '@nestjs/platform-express';\nexport const probe = ExpressAdapter;\n";
    const [result] = await eslint.lintText(code, { filePath });
    expect(result.messages.map((m) => m.message).join('\n')).toContain('Express is for the adapter bench only');
  });
});
