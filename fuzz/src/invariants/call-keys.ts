/**
 * Whether `callKey` is a key the runner gives a call with id `callId`
 * (`ToolExecutionContext.callKey`): the id itself, or `<callId>#<k>` with an
 * integer k of 2 or more, when the model reused the id in a later response.
 */
export function isCallKeyOf(callKey: string, callId: string): boolean {
  if (callKey === callId) return true;
  const k = callKey.startsWith(`${callId}#`) ? callKey.slice(callId.length + 1) : "";
  return /^[1-9][0-9]*$/.test(k) && Number(k) >= 2;
}
