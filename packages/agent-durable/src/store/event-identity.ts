/**
 * A SQL expression of what names the event `json` (a `jsonb` expression),
 * as opposed to what it measured: its type, its sub-agent origin, and the
 * payload fields that say which message and chunk, request, phase, status
 * or messages it is about. A replay writes each event again under the same
 * name; its timing, usage and message timestamps may differ (they are
 * measured again). Two events with the same name are the same event.
 */
export function eventIdentitySql(json: string): string {
  const payload = `${json}->'payload'`;
  return `jsonb_build_array(
    ${json}->'type', ${json}->'origin'->'turnId', ${json}->'origin'->'seq',
    CASE ${json}->>'type'
      WHEN 'stream.resp' THEN jsonb_build_array(${payload}->'messageId', ${payload}->'chunkIndex',
        ${payload}->'chunk'->'kind', ${payload}->'chunk'->'toolCallId', ${payload}->'chunk'->'status')
      WHEN 'session.status' THEN ${payload}->'status'
      WHEN 'debug.trace' THEN ${payload}->'phase'
      WHEN 'message.persisted' THEN jsonb_build_array(${payload}->'reason',
        jsonb_path_query_array(${payload}, '$.messages[*].role'))
      WHEN 'action.required' THEN ${payload}->'requestId'
      WHEN 'runtime.warning' THEN ${payload}->'code'
    END)`;
}
