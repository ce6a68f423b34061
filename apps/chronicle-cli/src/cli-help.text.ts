import type { CommandName } from './cli-args.parser.js';

const DATABASE = `Database: DATABASE_URL, or (unset) the embedded PostgreSQL in CHRONICLE_DATA_DIR (default ./.chronicle),
which only one process can use at a time: stop the service first, or set DATABASE_URL. An embedded cluster
that a command creates and leaves without events (a refused import, a dry run) is removed again.`;

const EXITS = `Exit codes: 0 ok, 1 mismatches found or import refused, 2 usage or connection error.`;

export const COMMAND_HELP: Readonly<Record<CommandName, string>> = {
  replay: `Usage: chronicle replay ID [--at VERSION] [--view display|context] [--json]

Folds session ID from its events (no snapshot, no cache) and prints its transcript: role, time, content,
tool calls, tool cards and interruption markers.

  --at VERSION   the session as of this stream version (past the head = the head)
  --view NAME    display (default: what the user sees) or context (what the model gets)
  --json         the exact object GET /v1/sessions/ID/transcript?at=VERSION&view=NAME answers, hash included`,
  export: `Usage: chronicle export [--session ID] > FILE.ndjson

Writes every event, one JSON object per line, in stream order:
  { sessionId, streamId, version, type, data, metadata, hash, recordedAt }
(recordedAt in epoch seconds, as the HTTP API answers it) from one consistent snapshot of the log, in constant memory. Progress goes to stderr.

  --session ID   only this session's stream`,
  import: `Usage: chronicle import FILE.ndjson

Imports an export file. First verifies the hash chain of every stream in the file (from version 1, or
from the stored event before the file's first version) and that events already stored are the same
events: a broken chain or a conflict refuses the whole file (exit 1, naming stream and version) before
anything is written. Then appends only what is missing, so importing twice adds nothing and the stored
hashes equal the file's. The session index is brought up to date afterwards.
Not carried by the file: idempotency keys and recordedAt (the import time is recorded).`,
  'import-hermes': `Usage: chronicle import-hermes --sessions DIR [--state-db PATH] [--journals DIR] [--dry-run] [--json]

Imports a hermes-webui install: each sidecar DIR/<sessionId>.json (names starting with _ are skipped) becomes
SessionStarted, MessagesRecorded, TranscriptTruncated, UserMessageSubmitted (its pending turn) and, for a
compression parent, SessionCompressed; the agent's state.db messages become StateRowsObserved (rowId = id,
active = 0 rows inactive); run journals <sessionId>/<runId>.jsonl become JournalEventRecorded. One append per
session through the service's write path: a session is imported whole or not at all. Re-running appends
only what is new. Bad input (an unreadable file, a state.db that is not SQLite, a refused session id, a
malformed journal line) is reported with its reason and never stops the rest.

  --sessions DIR   the sidecar folder (hermes' SESSION_DIR)
  --state-db PATH  the agent's state.db (default: none)
  --journals DIR   the run journals (default: DIR/_run_journal when it exists)
  --dry-run        decide everything, write nothing, print the same report
  --json           the report as JSON (what POST /v1/import/hermes answers)
Exit 1 when a session was refused.`,
  audit: `Usage: chronicle audit [--session ID | --since ISO] [--json]

Verifies the hash chain of each session's events, then rebuilds its views from the events with the pure
projection and compares them with the stored ones; prints the differences (path, stored, replayed).
Exit 1 when any session mismatches.

  --session ID   audit one session (default: every session, streamed, with progress)
  --since ISO    only the sessions whose stream changed at or after ISO (2026-01-31 or 2026-01-31T08:00:00Z)
  --json         machine-readable result on stdout`,
  rebuild: `Usage: chronicle rebuild NAME

Rebuilds read model NAME from the log beside the live one, switches atomically, drops the old one.`,
  'rotate-keys': `Usage: chronicle rotate-keys

Re-wraps every session data key under the current master key (CHRONICLE_MASTER_KEY), unwrapping with the
earlier ones listed in CHRONICLE_MASTER_KEY_PREVIOUS; the events are not touched. Afterwards the earlier master
keys can be retired. Progress on stderr; a second run re-wraps nothing.`,
};

export function mainHelp(): string {
  return `Usage: chronicle <command> [options]

Commands:
  replay ID [--at VERSION] [--view display|context] [--json]   print a session's transcript as of a version
  export [--session ID] > FILE.ndjson                          write events with their versions and hashes
  import FILE.ndjson                                           verify the hash chains, then append what is missing
  import-hermes --sessions DIR [--state-db PATH] [--journals DIR] [--dry-run] [--json]
                                                               turn hermes-webui files into events
  audit [--session ID | --since ISO] [--json]                  compare stored views with a replay of the events
  rebuild NAME                                                 blue/green rebuild of a read model
  rotate-keys                                                  re-wrap the session data keys under the current master key

Run 'chronicle <command> --help' for a command's options.

${DATABASE}
${EXITS}
`;
}

export function commandHelp(command: CommandName): string {
  return `${COMMAND_HELP[command]}\n\n${DATABASE}\n${EXITS}\n`;
}
