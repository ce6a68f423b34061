/**
 * The packed text of a batch's events (`store-audit.reader.ts` builds it in SQL, `AuditBatchProcessor` reads it):
 * a record per event, `part␟version␟hash␟type␟data as stored`, fields parted by U+001F and records by
 * U+001E. Valid JSON holds no raw control character, so neither can be in the data; a hash or a type holding
 * one is written as `?` by the reader (an event so edited then matches no link: reported broken).
 */
export const PACKED_FIELD = '\x1f';
export const PACKED_RECORD = '\x1e';
