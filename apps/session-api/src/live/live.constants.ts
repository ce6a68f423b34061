export const CONFIG_HEARTBEAT_MS = Symbol('CONFIG_HEARTBEAT_MS');

/** LISTEN/NOTIFY channel of appended sessions (`<streamId> <version>`), for the live feeds of every replica. */
export const NOTIFY_CHANNEL = 'chronicle_session_appended';
