import type { SessionEventType } from '#domain';

/** An input (a file, a row, a journal line) the import left out, and why. */
export interface Skipped {
  readonly item: string;
  readonly reason: string;
}

/**
 * What an import did, or would do with `dryRun`: the CLI prints it (`--json`: this object) and
 * `POST /v1/import/hermes` answers it.
 */
export interface HermesImportReport {
  readonly dryRun: boolean;
  readonly sessions: {
    /** Sidecar files read as sessions. */
    readonly read: number;
    /** Sessions that got (or would get) new events. */
    readonly imported: number;
    /** Sessions whose every event was already stored. */
    readonly unchanged: number;
    /** Sessions refused whole (unreadable, a refused id, a domain rule): nothing was written for them. */
    readonly refused: number;
  };
  readonly events: { readonly total: number; readonly byType: Partial<Record<SessionEventType, number>> };
  readonly skipped: readonly Skipped[];
}

/** Collects a report while sessions finish in any order; `build` sorts what it lists. */
export class ReportBuilder {
  private read = 0;
  private imported = 0;
  private unchanged = 0;
  private refused = 0;
  private readonly byType = new Map<SessionEventType, number>();
  private readonly skipped: Skipped[] = [];

  constructor(private readonly dryRun: boolean) {}

  skip(...items: readonly Skipped[]): void {
    this.skipped.push(...items);
  }

  sessionRead(): void {
    this.read++;
  }

  sessionRefused(item: Skipped): void {
    this.refused++;
    this.skipped.push(item);
  }

  sessionDone(types: readonly SessionEventType[]): void {
    if (types.length === 0) this.unchanged++;
    else this.imported++;
    for (const type of types) this.byType.set(type, (this.byType.get(type) ?? 0) + 1);
  }

  build(): HermesImportReport {
    const byType = Object.fromEntries([...this.byType].sort(([a], [b]) => a.localeCompare(b)));
    const total = [...this.byType.values()].reduce((sum, n) => sum + n, 0);
    const skipped = [...this.skipped].sort((a, b) => a.item.localeCompare(b.item, 'en', { numeric: true }));
    const sessions = { read: this.read, imported: this.imported, unchanged: this.unchanged, refused: this.refused };
    return { dryRun: this.dryRun, sessions, events: { total, byType }, skipped };
  }
}
