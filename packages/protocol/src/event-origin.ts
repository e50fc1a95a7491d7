/**
 * One sub-agent call on the way from a turn down to the turn that emitted
 * an event: the tool call that started the sub-agent, and the sub-agent's
 * name.
 */
export interface SubAgentStep {
  /** The model's id of the tool call that started the sub-agent, in the turn one level up. */
  toolCallId: string;
  /** The sub-agent's name (the tool the model called). */
  agent: string;
}

/**
 * Where an event came from when a sub-agent turn emitted it, set on the
 * envelope of every event a turn passes on from its sub-agents (absent on
 * the turn's own events).
 *
 * The envelope's `sessionId`, `turnId`, `eventId` and `seq` are the
 * receiving turn's (its `seq` stays one gap-free sequence over its own and
 * its sub-agents' events); the origin says which sub-agent turn emitted the
 * event and where it stood in that turn's own sequence. The events of one
 * origin `turnId`, in `seq` order, follow every rule of a turn's stream
 * (running first, one terminal status last), except that a sub-agent turn
 * cut short by the end of the receiving turn may stop early. A sub-agent's
 * terminal `session.status` is not the receiving turn's end.
 */
export interface EventOrigin {
  /** The tool call of the receiving turn that started the sub-agent (`path[0].toolCallId`). */
  toolCallId: string;
  /** From the receiving turn down to the turn that emitted the event, one step per sub-agent call (outermost first). */
  path: SubAgentStep[];
  /** The id of the sub-agent turn that emitted the event. */
  turnId: string;
  /** The event's `seq` within that sub-agent turn. */
  seq: number;
}
