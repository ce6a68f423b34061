import type { MessageRow } from '../messages/message-row.js';

/**
 * Row builders for the merge specs: short, so a scenario reads like the transcript it describes.
 * Test-only; nothing in the merge imports it.
 */
type Extra = Partial<Omit<MessageRow, 'role' | 'content' | 'timestamp'>>;

export function user(content: string, timestamp?: number | null, extra: Extra = {}): MessageRow {
  return withTimestamp({ role: 'user', content, ...extra }, timestamp);
}

export function assistant(content: string, timestamp?: number | null, extra: Extra = {}): MessageRow {
  return withTimestamp({ role: 'assistant', content, ...extra }, timestamp);
}

export function tool(content: string, timestamp?: number | null, extra: Extra = {}): MessageRow {
  return withTimestamp({ role: 'tool', content, ...extra }, timestamp);
}

function withTimestamp(row: MessageRow, timestamp: number | null | undefined): MessageRow {
  return timestamp === undefined ? row : { ...row, timestamp };
}

/** An OpenAI-style tool call, enough to give assistant rows distinct `toolCalls`. */
export function call(id: string, name = 'read_file'): { id: string; type: string; function: { name: string } } {
  return { id, type: 'function', function: { name } };
}

/** The prefix the WebUI puts before a prompt sent to the model; the agent store keeps it. */
export function inWorkspace(text: string, workspace = '/srv/project'): string {
  return `[Workspace::v1: ${workspace}]\n${text}`;
}

/** `role: content` per row: a whole transcript in one comparable, readable value. */
export function transcript(rows: readonly MessageRow[]): string[] {
  return rows.map((row) => `${row.role}: ${typeof row.content === 'string' ? row.content : JSON.stringify(row.content)}`);
}

/** Object.freeze, all the way down. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
