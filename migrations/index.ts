import { EventStore1764500000000 } from './1764500000000-event-store.js';
import { SessionReadModels1764500001000 } from './1764500001000-session-read-models.js';
import { Liveness1764500002000 } from './1764500002000-liveness.js';
import { SessionIndexSummary1764500003000 } from './1764500003000-session-index-summary.js';
import { AppendFunction1764500004000 } from './1764500004000-append-function.js';
import { SnapshotStateJson1764500005000 } from './1764500005000-snapshot-state-json.js';
import { EventDataJson1764500006000 } from './1764500006000-event-data-json.js';
import { ScaleOut1764500007000 } from './1764500007000-scale-out.js';
import { SealedReadModels1764500008000 } from './1764500008000-sealed-read-models.js';

/** Every migration, in order. Hand-written SQL; `synchronize` is never on. */
export const migrations = [
  EventStore1764500000000,
  SessionReadModels1764500001000,
  Liveness1764500002000,
  SessionIndexSummary1764500003000,
  AppendFunction1764500004000,
  SnapshotStateJson1764500005000,
  EventDataJson1764500006000,
  ScaleOut1764500007000,
  SealedReadModels1764500008000,
];
