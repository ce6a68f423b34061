import type { MessageRow } from '../messages/message-row.js';
import { contentStringOf, timestampOf } from './row-fields.normalizer.js';
import { hasToolCalls } from '../messages/message-row.js';

/**
 * The merge output under construction: a list of chunks, so a chronological insertion costs a scan
 * of chunk summaries plus one short splice instead of a walk and copy of the whole transcript.
 */

/** One output row. `row` is replaced (never mutated) when a dropped duplicate backfills it. */
export interface Slot {
  row: MessageRow;
  readonly ts: number | null;
  readonly role: string;
  /** An assistant row with tool calls (its tool results must stay glued to it). */
  readonly callsTools: boolean;
  /** An assistant row with text and no tool calls (a final answer). */
  readonly answers: boolean;
}

export interface ChunkSummary {
  readonly maxTs: number;
  readonly maxAssistantTs: number;
  readonly maxAnswerTs: number;
}

interface Chunk extends ChunkSummary {
  slots: Slot[];
  maxTs: number;
  maxAssistantTs: number;
  maxAnswerTs: number;
}

export interface Timeline {
  readonly chunks: Chunk[];
}

/** A gap before `chunks[chunk].slots[offset]`; the end of the list is one past the last slot. */
export interface Position {
  readonly chunk: number;
  readonly offset: number;
}

const CHUNK_SIZE = 256;
const NON_SPACE = /\S/;

export function slotOf(row: MessageRow): Slot {
  const assistant = row.role === 'assistant';
  const callsTools = assistant && hasToolCalls(row);
  const answers = assistant && !callsTools && NON_SPACE.test(contentStringOf(row));
  return { row, ts: timestampOf(row), role: row.role, callsTools, answers };
}

function chunkOf(slots: Slot[]): Chunk {
  const chunk: Chunk = { slots, maxTs: -Infinity, maxAssistantTs: -Infinity, maxAnswerTs: -Infinity };
  for (const slot of slots) absorb(chunk, slot);
  return chunk;
}

function absorb(chunk: Chunk, slot: Slot): void {
  if (slot.ts === null) return;
  chunk.maxTs = Math.max(chunk.maxTs, slot.ts);
  if (slot.role === 'assistant') chunk.maxAssistantTs = Math.max(chunk.maxAssistantTs, slot.ts);
  if (slot.answers) chunk.maxAnswerTs = Math.max(chunk.maxAnswerTs, slot.ts);
}

export function createTimeline(slots: readonly Slot[]): Timeline {
  const chunks: Chunk[] = [];
  for (let start = 0; start < slots.length; start += CHUNK_SIZE) chunks.push(chunkOf(slots.slice(start, start + CHUNK_SIZE)));
  if (chunks.length === 0) chunks.push(chunkOf([]));
  return { chunks };
}

export function appendSlot(timeline: Timeline, slot: Slot): void {
  const last = timeline.chunks.length - 1;
  insertSlotAt(timeline, { chunk: last, offset: timeline.chunks[last]!.slots.length }, slot);
}

export function insertSlotAt(timeline: Timeline, position: Position, slot: Slot): void {
  const chunk = timeline.chunks[position.chunk]!;
  chunk.slots.splice(position.offset, 0, slot);
  absorb(chunk, slot);
  if (chunk.slots.length < 2 * CHUNK_SIZE) return;
  const tail = chunk.slots.splice(CHUNK_SIZE);
  timeline.chunks.splice(position.chunk, 1, chunkOf(chunk.slots), chunkOf(tail));
}

export function slotAt(timeline: Timeline, position: Position): Slot | null {
  return timeline.chunks[position.chunk]?.slots[position.offset] ?? null;
}

export function slotBefore(timeline: Timeline, position: Position): Slot | null {
  if (position.offset > 0) return timeline.chunks[position.chunk]!.slots[position.offset - 1] ?? null;
  const previous = timeline.chunks[position.chunk - 1];
  return previous ? (previous.slots[previous.slots.length - 1] ?? null) : null;
}

export function nextPosition(timeline: Timeline, position: Position): Position {
  const size = timeline.chunks[position.chunk]!.slots.length;
  if (position.offset + 1 < size || position.chunk + 1 >= timeline.chunks.length) {
    return { chunk: position.chunk, offset: position.offset + 1 };
  }
  return { chunk: position.chunk + 1, offset: 0 };
}

export function isFirstPosition(position: Position): boolean {
  return position.chunk === 0 && position.offset === 0;
}

/** The first slot satisfying `qualifies`, skipping whole chunks whose summary rules it out. */
export function findFirst(
  timeline: Timeline,
  chunkMayQualify: (summary: ChunkSummary) => boolean,
  qualifies: (slot: Slot) => boolean,
): Position | null {
  for (let c = 0; c < timeline.chunks.length; c += 1) {
    const chunk = timeline.chunks[c]!;
    if (!chunkMayQualify(chunk)) continue;
    const offset = chunk.slots.findIndex(qualifies);
    if (offset >= 0) return { chunk: c, offset };
  }
  return null;
}

export function timelineRows(timeline: Timeline): MessageRow[] {
  const rows: MessageRow[] = [];
  for (const chunk of timeline.chunks) for (const slot of chunk.slots) rows.push(slot.row);
  return rows;
}
