import 'reflect-metadata';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Body, Controller, type INestApplication, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { z } from 'zod';
import { ZodValidationPipe } from '../libs/platform/src/validation/zod-validation.pipe.js';
import { threadCpuMs } from './proc-cpu.js';

/**
 * HTTP adapter benchmark: `npm run bench:http`. How the project measures NestJS on Fastify against Express
 * and keeps the faster. The same bare Nest module (one POST route that validates a small JSON body with the
 * service's zod pipe and answers 201 JSON, no guard, no database) runs on each adapter in turn on
 * 127.0.0.1:0, driven by a keep-alive HTTP/1.1 client on plain sockets. The client runs in a worker
 * thread so that it does not share the server's event loop; on a 2-core machine both still share the CPU.
 */

export interface AdapterFigures {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /**
   * CPU of the server's thread (the main thread, from /proc) per answer in the measured window: what Nest,
   * the adapter, the zod pipe and node:http cost a request with no guard, hook or database. A floor: V8's
   * helper threads (concurrent GC) are left out, as the client in the worker thread shares them.
   */
  readonly serverCpuMsPerRequest: number;
}

export interface HttpAdapterBenchResult {
  readonly express: AdapterFigures;
  readonly fastify: AdapterFigures;
}

const WARMUP_MS = 500;
const PATH = '/v1/sessions/bench-1/messages';

const benchBody = z.strictObject({
  rows: z.array(z.strictObject({ role: z.enum(['user', 'assistant']), content: z.string().max(1000), timestamp: z.number() })).min(1).max(10),
});

@Controller('v1/sessions')
class BenchController {
  @Post(':id/messages')
  write(@Body(new ZodValidationPipe(benchBody)) body: z.infer<typeof benchBody>) {
    return { sessionId: 'bench-1', version: body.rows.length + 1, appended: 1, duplicate: false };
  }
}

@Module({ controllers: [BenchController] })
class BenchModule {}

const BODY = JSON.stringify({ rows: [{ role: 'user', content: 'What is event sourcing?', timestamp: 1_800_000_000.25 }] });
const REQUEST = Buffer.from(
  `POST ${PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(BODY)}\r\n\r\n${BODY}`,
);

interface ClientJob {
  readonly port: number;
  readonly seconds: number;
  readonly connections: number;
}

interface ClientResult {
  readonly completed: number;
  readonly failed: number;
  readonly elapsedMs: number;
  readonly latenciesMs: number[];
}

/**
 * One keep-alive connection: sends a request, reads one whole response (Content-Length or chunked),
 * sends the next. Answers the status of each response through `onResponse`.
 */
function driveConnection(port: number, until: () => boolean, onResponse: (status: number, ms: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    let buffer = Buffer.alloc(0);
    let sentAt = 0n;
    const send = () => {
      if (until()) {
        socket.end();
        return;
      }
      sentAt = process.hrtime.bigint();
      socket.write(REQUEST);
    };
    /** Length of the first complete response in the buffer, or 0 while it is still arriving. */
    const responseLength = (): number => {
      const headEnd = buffer.indexOf('\r\n\r\n');
      if (headEnd < 0) return 0;
      const head = buffer.subarray(0, headEnd).toString('latin1');
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      if (length) {
        const total = headEnd + 4 + Number(length[1]);
        return buffer.length >= total ? total : 0;
      }
      if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
        const end = buffer.indexOf('\r\n0\r\n\r\n', headEnd);
        return end < 0 ? 0 : end + 7;
      }
      return headEnd + 4;
    };
    socket.on('connect', send);
    socket.on('data', (chunk) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      const length = responseLength();
      if (length === 0) return;
      const status = Number(buffer.subarray(9, 12).toString('latin1'));
      buffer = buffer.subarray(length);
      onResponse(status, Number(process.hrtime.bigint() - sentAt) / 1e6);
      send();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve());
  });
}

/** The load client (runs in the worker): a warm-up, then `seconds` of measured load. */
async function runClient(job: ClientJob): Promise<ClientResult> {
  const latenciesMs: number[] = [];
  let completed = 0;
  let failed = 0;
  let measuring = false;
  const warmupEnd = Date.now() + WARMUP_MS;
  const end = warmupEnd + job.seconds * 1000;
  let startedAt = 0;
  const onResponse = (status: number, ms: number) => {
    if (!measuring && Date.now() >= warmupEnd) {
      measuring = true;
      startedAt = performance.now();
      parentPort?.postMessage({ measuring: true });
    }
    if (!measuring) return;
    if (status === 201) {
      completed += 1;
      latenciesMs.push(ms);
    } else {
      failed += 1;
    }
  };
  await Promise.all(Array.from({ length: job.connections }, () => driveConnection(job.port, () => Date.now() >= end, onResponse)));
  return { completed, failed, elapsedMs: performance.now() - startedAt, latenciesMs };
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Runs the client in a worker; `onMeasuring` when its measured window opens. */
function clientInWorker(job: ClientJob, onMeasuring: () => void): Promise<ClientResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { httpAdapterBench: job } });
    worker.on('message', (message: ClientResult | { measuring: true }) => {
      if ('measuring' in message) onMeasuring();
      else resolve(message);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`load client exited with ${code}`));
    });
  });
}

async function startBenchApp(adapter: 'express' | 'fastify'): Promise<{ app: INestApplication; port: number }> {
  const app = await NestFactory.create(BenchModule, adapter === 'express' ? new ExpressAdapter() : new FastifyAdapter(), { logger: false });
  await app.listen(0, '127.0.0.1');
  return { app, port: (app.getHttpServer().address() as AddressInfo).port };
}

/** One request, checked, before the load: both adapters must give the same answer the load counts. */
async function checkAnswer(port: number): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${port}${PATH}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: BODY });
  const body = (await res.json()) as { version?: number };
  if (res.status !== 201 || body.version !== 2) throw new Error(`unexpected answer ${res.status} ${JSON.stringify(body)}`);
}

export async function runHttpAdapterBench(options: { seconds?: number; connections?: number } = {}): Promise<HttpAdapterBenchResult> {
  const seconds = options.seconds ?? 3;
  const connections = options.connections ?? 16;
  const figures: Partial<Record<'express' | 'fastify', AdapterFigures>> = {};
  for (const adapter of ['express', 'fastify'] as const) {
    const { app, port } = await startBenchApp(adapter);
    try {
      await checkAnswer(port);
      let cpuAtStart = Number.NaN;
      const result = await clientInWorker({ port, seconds, connections }, () => (cpuAtStart = threadCpuMs(process.pid)));
      const serverCpu = threadCpuMs(process.pid) - cpuAtStart;
      if (result.failed > 0) throw new Error(`${adapter}: ${result.failed} responses were not 201`);
      const sorted = result.latenciesMs.sort((a, b) => a - b);
      figures[adapter] = {
        rps: Math.round((result.completed / result.elapsedMs) * 1000),
        p50Ms: round(percentile(sorted, 0.5), 2),
        p99Ms: round(percentile(sorted, 0.99), 2),
        serverCpuMsPerRequest: round(serverCpu / result.completed, 4),
      };
    } finally {
      await app.close();
    }
  }
  return { express: figures.express!, fastify: figures.fastify! };
}

function printTable(result: HttpAdapterBenchResult, seconds: number, connections: number): void {
  const rows = (['express', 'fastify'] as const).map((name) => {
    const f = result[name];
    return `| ${name.padEnd(7)} | ${String(f.rps).padStart(7)} | ${f.p50Ms.toFixed(2).padStart(6)} | ${f.p99Ms.toFixed(2).padStart(6)} | ${f.serverCpuMsPerRequest.toFixed(3).padStart(14)} |`;
  });
  process.stdout.write(
    `HTTP adapters: one validated POST, ${connections} keep-alive connections, ${seconds} s each (Node ${process.versions.node})\n\n` +
      `| adapter |   req/s | p50 ms | p99 ms | server CPU, ms |\n|---------|---------|--------|--------|----------------|\n${rows.join('\n')}\n\n` +
      `fastify/express req/s: ${(result.fastify.rps / result.express.rps).toFixed(2)}x\n`,
  );
}

const job = (workerData as { httpAdapterBench?: ClientJob } | null)?.httpAdapterBench;
if (!isMainThread && job) {
  void runClient(job).then((result) => parentPort!.postMessage(result));
} else if (isMainThread && process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const seconds = 3;
  const connections = 16;
  runHttpAdapterBench({ seconds, connections })
    .then((result) => printTable(result, seconds, connections))
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    });
}
