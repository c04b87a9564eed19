// A v2 agent's session update, applied to the session it names: what v1 also says goes through the model's own
// `apply`, and what v2 adds (whole messages, content appended to a tool call, the session's state, the agent's own
// terminals, plans by id) through the model's and the session's v2 operations.
import type { Session } from '../sessionHandle';
import type { V2Event } from './updates';

export function applyV2(session: Pick<Session, 'model' | 'applyState'>, event: V2Event): void {
  const model = session.model;
  switch (event.type) {
    case 'update':
      if (event.update.sessionUpdate === 'tool_call_update' && event.cancellable !== undefined) {
        // Before the update is applied, so that the card it changes shows it.
        const toolCallId = event.update.toolCallId;
        const call = model.toolCall(toolCallId) ?? model.noteToolCall({ toolCallId });
        if (event.cancellable) call.cancellable = true;
        else delete call.cancellable;
        model.background.toolCancellable(toolCallId, event.cancellable);
      }
      return model.apply(event.update);
    case 'message':
      return model.putMessage(event.role, event.messageId, event.content);
    case 'toolContent':
      return model.appendToolContent(event.toolCallId, event.content);
    case 'state':
      return session.applyState(event);
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
