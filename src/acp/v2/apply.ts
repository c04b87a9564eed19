// A v2 agent's session update, applied to the model of the session it names: what v1 also says goes through the
// model's own `apply`, and what v2 adds (whole messages, content appended to a tool call, the session's state, the
// agent's own terminals, plans by id) through the model's v2 operations.
import type { QuotaMeter } from '../quota';
import { infoError } from '../quirks';
import { readTurnFailure } from '../turnFailure';
import type { SessionModel } from '../sessionModel';
import type { V2Event } from './updates';

/** `quota`: the account's limits the agent reported, read only when a turn fails (not on every update). */
export function applyV2(model: SessionModel, event: V2Event, quota?: { readonly all: readonly QuotaMeter[] }): void {
  switch (event.type) {
    case 'update': {
      // v2's usage without a cost leaves the cost as it was (v1's has none to leave).
      if (event.update.sessionUpdate === 'usage_update' && !('cost' in event.update) && model.usage?.cost) {
        return model.apply({ ...event.update, cost: model.usage.cost });
      }
      if (event.update.sessionUpdate === 'tool_call_update' && event.cancellable !== undefined) {
        // Before the update is applied, so that the card it changes shows it.
        const toolCallId = event.update.toolCallId;
        const call = model.toolCall(toolCallId) ?? model.noteToolCall({ toolCallId });
        if (event.cancellable) call.cancellable = true;
        else delete call.cancellable;
        model.background.toolCancellable(toolCallId, event.cancellable);
      }
      model.apply(event.update);
      // An agent that says its retries and late errors in session_info_update (quirks.ts): notices too.
      const error = infoError(model.quirks, event.update, model);
      if (error) model.apply(error);
      return;
    }
    case 'message':
      return model.putMessage(event.role, event.messageId, event.content);
    case 'toolContent':
      return model.appendToolContent(event.toolCallId, event.content);
    case 'state':
      return applyState(model, event, quota);
    case 'terminal':
      model.agentTerminal(event.terminalId, {
        ...(event.output !== undefined && { output: event.output, append: event.chunk === true }),
        ...(event.exitStatus && { exitStatus: event.exitStatus }),
      });
      return model.background.agentTerminal(event.terminalId, {
        ...(event.command !== undefined && { command: event.command }),
        ...(event.cancellable !== undefined && { cancellable: event.cancellable }),
        exited: event.exitStatus !== undefined,
      });
    case 'plan':
      return model.applyPlanById(event.update);
  }
}

/**
 * The agent's state. `running` (or `requires_action`) says the agent works in the foreground: the turn the user began,
 * or, while none runs, work the agent started by itself. `idle` ends that turn, with its stop reason or its error,
 * once it is the agent's idle for that turn (turn.ts says when). The `background` list, where present, replaces the last.
 */
function applyState(
  model: SessionModel,
  event: Extract<V2Event, { type: 'state' }>,
  quota: { readonly all: readonly QuotaMeter[] } | undefined,
): void {
  if (event.background) model.background.report(event.background);
  const turn = model.v2;
  if (event.state !== 'idle') {
    if (model.turn.phase === 'idle') {
      turn.ended();
      turn.own = true;
      model.agentTurn();
    }
    turn.running = true;
    return;
  }
  const ends = model.turn.phase !== 'idle' && turn.idleEnds(model.turn.phase === 'cancelling');
  turn.running = false;
  if (!ends) return;
  turn.ended();
  if (event.error !== undefined) model.failTurn(event.error, event.errorCode, readTurnFailure(event.errorCode, event.errorData, quota?.all));
  else model.endTurn(event.stopReason ?? 'end_turn', event.usage);
}
