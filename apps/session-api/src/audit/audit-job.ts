import { EventEmitter } from 'node:events';
import type { AuditProgress, AuditReport } from '#read-models';

export type AuditJobStatus = 'running' | 'completed' | 'failed';

/** What `GET /v1/audit/{jobId}` answers (and each SSE event of `/live` carries). */
export interface AuditJobAnswer {
  readonly jobId: string;
  readonly status: AuditJobStatus;
  /** ISO time filter the job was started with (null: every session). */
  readonly since: string | null;
  readonly startedAt: string;
  readonly finishedAt: string | null;
  readonly progress: {
    readonly sessions: number;
    readonly totalSessions: number | null;
    readonly events: number;
    readonly totalEvents: number | null;
    readonly eventsPerSecond: number;
    readonly etaSeconds: number | null;
    readonly mismatches: number;
    readonly seconds: number;
  };
  /** At the end: what `POST /v1/audit` used to answer (`mismatches` with their differences, path by path). */
  readonly result: Pick<AuditReport, 'sessions' | 'mismatches' | 'eventsReplayed' | 'seconds'> | null;
  readonly error: string | null;
}

/** One whole-store audit run by this process; emits `progress` (throttled by the caller) and `end`. */
export class AuditJob extends EventEmitter {
  private status: AuditJobStatus = 'running';
  private progress: AuditProgress | null = null;
  private result: AuditJobAnswer['result'] = null;
  private error: string | null = null;
  private finishedAt: Date | null = null;
  private readonly startedAt = new Date();

  constructor(
    readonly jobId: string,
    readonly since: Date | null,
  ) {
    super();
  }

  get running(): boolean {
    return this.status === 'running';
  }

  progressed(progress: AuditProgress): void {
    this.progress = progress;
    this.emit('progress');
  }

  completed(report: AuditReport): void {
    const { sessions, mismatches, eventsReplayed, seconds } = report;
    this.result = { sessions, mismatches, eventsReplayed, seconds };
    this.end('completed');
  }

  failed(error: unknown): void {
    this.error = error instanceof Error ? error.message : String(error);
    this.end('failed');
  }

  answer(): AuditJobAnswer {
    const p = this.progress;
    const r = this.result;
    return {
      jobId: this.jobId,
      status: this.status,
      since: this.since?.toISOString() ?? null,
      startedAt: this.startedAt.toISOString(),
      finishedAt: this.finishedAt?.toISOString() ?? null,
      progress: {
        sessions: r?.sessions ?? p?.sessions ?? 0,
        totalSessions: p?.total ?? r?.sessions ?? null,
        events: r?.eventsReplayed ?? p?.eventsReplayed ?? 0,
        totalEvents: p?.totalEvents ?? r?.eventsReplayed ?? null,
        eventsPerSecond: p?.eventsPerSecond ?? 0,
        etaSeconds: this.status === 'running' ? (p?.etaSeconds ?? null) : 0,
        mismatches: r?.mismatches.length ?? p?.mismatches ?? 0,
        seconds: r?.seconds ?? p?.seconds ?? 0,
      },
      result: r,
      error: this.error,
    };
  }

  private end(status: AuditJobStatus): void {
    this.status = status;
    this.finishedAt = new Date();
    this.emit('end');
  }
}
