import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort } from '../libs/platform/src/net/free-port.js';
import { startServiceProcess, waitForHttp, type ServiceProcess } from './service-process.js';

/** The peer's own package (bench/peers/emmett): its dependencies stay out of the project's `npm ci`. */
const PEER_DIR = fileURLToPath(new URL('../../bench/peers/emmett/', import.meta.url));

export interface EmmettPeer {
  readonly service: ServiceProcess;
  readonly port: number;
}

/**
 * Emmett 0.42 behind node:http (phase 4c, `bench/peers/emmett/emmett-service.mjs`) on `databaseUrl`: its
 * package installed from its own lockfile on first use (`npm ci` there, about 10 s; `progress` says so), then
 * started and ready on `/health` (its schema migrated).
 */
export async function startEmmettPeer(databaseUrl: string, progress: (message: string) => void): Promise<EmmettPeer> {
  if (!existsSync(`${PEER_DIR}node_modules/@event-driven-io/emmett-postgresql`)) {
    progress(`installing the Emmett peer's package (npm ci in ${PEER_DIR})`);
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: PEER_DIR, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const port = await freePort();
  const service = startServiceProcess('emmett-service', `${PEER_DIR}emmett-service.mjs`, { PORT: String(port), DATABASE_URL: databaseUrl });
  await waitForHttp(service, port, '/health');
  return { service, port };
}
