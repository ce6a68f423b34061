import type { IncomingMessage } from 'node:http';
import { type BeforeApplicationShutdown, Inject, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { type OnGatewayConnection, type OnGatewayDisconnect, WebSocketGateway } from '@nestjs/websockets';
import type { WebSocket } from 'ws';
import { type ChronicleConfig, DatabaseReachability, Metrics, problemOf, RateLimiter, requestIdFor } from '#platform';
import { CONFIG } from '../app.constants.js';
import { ExecuteSessionCommand } from '../sessions/execute-session-command.command.js';
import { CLOSE, IngestConnection, journalOf } from './ingest-connection.js';
import { RecordJournalParts } from './record-journal-parts.command.js';
import type { AuthorizedUpgrade } from './ingest-socket.adapter.js';

export const INGEST_PATH = '/v1/ingest';

/**
 * `GET /v1/ingest`, upgraded to a WebSocket (the key in the upgrade's `Authorization` header, scope `ingest`,
 * checked by `IngestSocketAdapter` before the upgrade completes). Each message runs through the same command
 * bus as the HTTP route it names, with the same validation, idempotency and answers (`IngestConnection`).
 * Every `liveHeartbeatMs` each connection is pinged; one that has not answered the previous ping is closed
 * (one this side has stopped reading, at its unanswered limit, is not: its pong cannot be read).
 * On shutdown every connection stops reading, answers what it read, then closes with 1001.
 */
@WebSocketGateway({ path: INGEST_PATH })
export class IngestGateway implements OnGatewayConnection, OnGatewayDisconnect, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Ingest');
  private readonly connections = new Map<WebSocket, { connection: IngestConnection; alive: boolean }>();
  private closing = false;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly commands: CommandBus,
    private readonly metrics: Metrics,
    private readonly reachability: DatabaseReachability,
    private readonly limiter: RateLimiter,
    @Inject(CONFIG) private readonly config: ChronicleConfig,
  ) {
    this.heartbeat = setInterval(() => this.ping(), config.liveHeartbeatMs);
    this.heartbeat.unref();
  }

  handleConnection(socket: WebSocket, request: IncomingMessage): void {
    if (this.closing) {
      socket.close(CLOSE.goingAway, 'server shutting down');
      return;
    }
    const connectionId = requestIdFor(request);
    const key = (request as AuthorizedUpgrade).chronicleKey;
    const limit = key === undefined ? 0 : this.limiter.limitOf(key.rateLimitPerMinute);
    const connection = new IngestConnection(socket, {
      maxUnanswered: this.config.ingestMaxUnanswered,
      bodyLimitBytes: this.config.bodyLimitBytes,
      // Each message is a request of the HTTP contract: the key's limit counts them as it counts requests.
      ...(key !== undefined && limit > 0 ? { admit: () => ({ wait: this.limiter.take(key.key, limit), limit }) } : {}),
      execute: (message) =>
        this.commands.execute(
          new ExecuteSessionCommand(message.sessionId, message.command, {
            expectedVersion: message.expectedVersion,
            durability: message.durability,
            requestId: `${connectionId}/${message.id}`,
          }),
        ),
      executeJournal: (messages) => {
        const first = messages[0]!;
        const journals = messages.map((m) => journalOf(m)!);
        const [runId, parts] = [journals[0]!.runId, journals.map((journal) => journal.events)];
        return this.commands.execute(
          new RecordJournalParts(first.sessionId, runId, parts, { durability: first.durability, requestId: `${connectionId}/${first.id}` }),
        );
      },
      problemOf: (error) => this.problemOf(error, `a message of ingest connection ${connectionId}`),
      onReply: (status) => this.metrics.ingestMessages.inc({ status: String(status) }),
    });
    const entry = { connection, alive: true };
    this.connections.set(socket, entry);
    socket.on('pong', () => (entry.alive = true));
    this.metrics.ingestConnections.set(this.connections.size);
  }

  handleDisconnect(socket: WebSocket): void {
    this.connections.delete(socket);
    this.metrics.ingestConnections.set(this.connections.size);
  }

  private problemOf(error: unknown, where: string) {
    const { body, unavailable } = problemOf(error, { bodyLimitBytes: this.config.bodyLimitBytes });
    if (unavailable) this.reachability.unreachable('request', error);
    else if (body.status >= 500) this.logger.error(`${where} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return body;
  }

  private ping(): void {
    for (const [socket, entry] of this.connections) {
      if (socket.isPaused) {
        // Not reading (its messages wait for their commits, or it does not read its replies): its pong waits
        // behind what it sent, so no pong is no news. Its liveness is checked again once it is read.
        entry.alive = true;
        continue;
      }
      if (!entry.alive) {
        // A peer that stopped answering will not answer a closing handshake either.
        socket.terminate();
        continue;
      }
      entry.alive = false;
      socket.ping();
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    clearInterval(this.heartbeat);
    await Promise.all([...this.connections.values()].map(({ connection }) => connection.shutDown()));
  }

  onApplicationShutdown(): void {
    clearInterval(this.heartbeat);
  }
}
