/** The parts of the session API the dashboard reads (../shared/design/http-api.md is the contract). */

export type Scope = 'ingest' | 'read' | 'admin';
export type SessionStatus = 'active' | 'pending' | 'recovering' | 'interrupted' | 'archived';
export const SESSION_STATUSES: readonly SessionStatus[] = ['active', 'pending', 'recovering', 'interrupted', 'archived'];

export interface Problem {
  readonly title: string;
  readonly detail?: string;
  readonly status: number;
  readonly code?: string;
  readonly errors?: readonly { path: string; message: string }[];
}

export type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; imageUrl?: { url?: string } } | { type: string; [key: string]: unknown };

export interface MessageRow {
  readonly role: 'user' | 'assistant' | 'tool' | 'system';
  readonly content?: string | readonly ContentPart[] | null;
  readonly timestamp?: number;
  readonly attachments?: unknown;
  readonly toolCalls?: unknown;
  readonly toolName?: string;
  readonly toolCallId?: string;
  readonly reasoning?: string;
  readonly partial?: boolean;
  readonly error?: unknown;
  readonly type?: string;
  readonly interruptionCause?: string;
  readonly recovered?: boolean;
  readonly recoveredFromRunJournal?: boolean;
  readonly meta?: Record<string, unknown>;
}

export interface ToolCard {
  readonly name: string;
  readonly preview?: string | null;
  readonly args?: unknown;
  readonly done: boolean;
  readonly isError: boolean;
  readonly duration?: number | null;
  readonly assistantMessageIndex: number | null;
  readonly recoveredFromRunJournal?: boolean;
}

export type MarkerStatus = 'pending_journal' | 'recovered' | 'no_output' | 'neutral' | 'superseded';
export interface Marker {
  readonly runId: string;
  readonly cause: string;
  readonly status: MarkerStatus;
  readonly content: string;
  readonly timestamp: number;
  readonly messageIndex: number | null;
}

export interface Streaming {
  readonly runId: string;
  readonly text: string;
  readonly reasoning: string;
  readonly toolCards: readonly ToolCard[];
}

export interface PendingTurn {
  readonly runId: string;
  readonly text: string;
  readonly attachments?: unknown;
  readonly submittedAt: number;
}

export interface MarkerCounts {
  readonly pending: number;
  readonly recovered: number;
  readonly noOutput: number;
  readonly neutral: number;
}

export interface SessionSummary {
  readonly sessionId: string;
  readonly title: string | null;
  readonly parentSessionId: string | null;
  readonly archived: boolean;
  readonly version: number;
  readonly createdAt: number | null;
  readonly lastActivityAt: number | null;
  readonly messageCount: number;
  readonly pendingTurn: PendingTurn | null;
  readonly markers: MarkerCounts;
  readonly status?: SessionStatus;
}

export interface SessionPage {
  readonly items: readonly SessionSummary[];
  readonly nextCursor: string | null;
}

export type View = 'display' | 'context';

export interface Transcript {
  readonly sessionId: string;
  readonly version: number;
  readonly view: View;
  readonly messages: readonly MessageRow[];
  readonly toolCards: readonly ToolCard[];
  readonly hash: string;
  readonly streaming?: Streaming | null;
}

/** A `since` answer and a `/live?patches=1` event: keep the first `from` rows, append `messages`. */
export interface TranscriptPatch {
  readonly version: number;
  readonly hash: string;
  readonly since: number;
  readonly from: number;
  readonly messages: readonly MessageRow[];
  readonly toolCards: readonly ToolCard[];
  readonly markers: readonly Marker[];
  readonly streaming?: Streaming | null;
}

export interface StoredEvent {
  readonly version: number;
  readonly globalPosition: number | string;
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly metadata: Record<string, unknown>;
  readonly recordedAt: number;
}

export interface EventPage {
  readonly items: readonly StoredEvent[];
  readonly nextAfter: number | null;
}

export interface JournalEvent {
  readonly seq: number;
  readonly event: string;
  readonly payload: Record<string, unknown>;
  readonly createdAt: number;
}

export interface Journal {
  readonly runId: string;
  readonly events: readonly JournalEvent[];
  readonly lastSeq: number;
  readonly gaps: readonly (readonly [number, number])[];
  readonly terminal: unknown;
  readonly terminalState: string;
}

export interface SessionAudit {
  readonly sessionId: string;
  readonly version: number;
  readonly storedHash: string | null;
  readonly replayedHash: string | null;
  readonly match: boolean;
  readonly chain: { readonly ok: boolean; readonly firstBrokenVersion: number | null };
  readonly differences: readonly unknown[];
}

export interface StoreAudit {
  readonly sessions: number;
  readonly mismatches: readonly unknown[];
  readonly eventsReplayed: number;
  readonly seconds: number;
}

/** `POST /v1/audit` (202) and `GET /v1/audit/{jobId}`: a whole-store audit job. */
export interface AuditJob {
  readonly jobId: string;
  readonly status: 'running' | 'completed' | 'failed';
  readonly progress: {
    readonly sessions: number;
    readonly totalSessions: number | null;
    readonly events: number;
    readonly eventsPerSecond: number;
    readonly etaSeconds: number | null;
  };
  readonly result: StoreAudit | null;
  readonly error: string | null;
}

export interface SweepResult {
  readonly examined: number;
  readonly interrupted: number;
  readonly recoveredFromAgentStore: number;
  readonly gaveUp: number;
}

/** An answer that was not 2xx, as the problem details the API sent (or the closest we can say). */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ? `${problem.title}: ${problem.detail}` : problem.title);
  }
}

export async function problemOf(response: Response): Promise<Problem> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as Partial<Problem>;
    if (typeof body.title === 'string') return { ...body, title: body.title, status: response.status };
  } catch {
    // Not problem details (a proxy's page): say what we know.
  }
  return { title: response.statusText || `HTTP ${response.status}`, status: response.status, detail: text.slice(0, 200) || undefined };
}

const networkProblem = (error: unknown): Problem => ({
  title: 'The service did not answer',
  status: 0,
  detail: error instanceof Error ? error.message : String(error),
});

export const path = (template: TemplateStringsArray, ...values: (string | number)[]) =>
  template.reduce((out, part, i) => out + part + (i < values.length ? encodeURIComponent(String(values[i])) : ''), '');

/** Every call carries the key in the Authorization header, never in a URL. */
export class Api {
  constructor(readonly key: string) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { Authorization: `Bearer ${this.key}`, Accept: 'application/json', ...extra };
  }

  async request<T>(method: string, url: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: this.headers(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
        cache: 'no-store',
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ApiError(networkProblem(error));
    }
    if (!response.ok) throw new ApiError(await problemOf(response));
    return (await response.json()) as T;
  }

  get<T>(url: string, signal?: AbortSignal) {
    return this.request<T>('GET', url, undefined, signal);
  }

  post<T>(url: string, body: unknown = {}) {
    return this.request<T>('POST', url, body);
  }

  scopes() {
    return this.get<{ scopes: Scope[] }>('/v1/key').then((answer) => answer.scopes);
  }
}
