// Builders for messages and subscription events used by tests and the harness.

import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { AskKind, MessageSchema, SayKind, type Message } from "@cairn/proto/gen/cairn/v1/message_pb";
import { SubscribeResponseSchema, TaskStateSchema, TaskStatus, type SubscribeResponse } from "@cairn/proto/gen/cairn/v1/task_pb";
import { Mode } from "@cairn/proto/gen/cairn/v1/state_pb";

type MsgInit = Omit<Exclude<MessageInitShape<typeof MessageSchema>, Message>, "index" | "kind" | "$typeName">;

export function say(index: number, kind: SayKind, init: MsgInit = {}): Message {
  return create(MessageSchema, { index, kind: { case: "say", value: kind }, ...init });
}

export function ask(index: number, kind: AskKind, init: MsgInit = {}): Message {
  return create(MessageSchema, { index, kind: { case: "ask", value: kind }, ...init });
}

export type StateInit = MessageInitShape<typeof TaskStateSchema>;

export function taskState(init: StateInit = {}) {
  return create(TaskStateSchema, {
    taskId: "t1",
    status: TaskStatus.RUNNING,
    mode: Mode.ACT,
    title: "Fix the bug",
    openAskIndex: -1,
    ...init,
  });
}

export function snapshot(messages: Message[], state: StateInit = {}, firstIndex = 0): SubscribeResponse {
  return create(SubscribeResponseSchema, {
    event: { case: "snapshot", value: { messages, state: taskState({ messageCount: messages.length, ...state }), firstIndex } },
  });
}

export function added(m: Message): SubscribeResponse {
  return create(SubscribeResponseSchema, { event: { case: "messageAdded", value: { message: m } } });
}

export function appended(index: number, delta: string): SubscribeResponse {
  return create(SubscribeResponseSchema, { event: { case: "textAppended", value: { index, delta } } });
}

/** finalized is a MessageFinalized event: the row stops streaming, its text unchanged. */
export function finalized(index: number): SubscribeResponse {
  return create(SubscribeResponseSchema, { event: { case: "messageFinalized", value: { index } } });
}

export function updated(m: Message): SubscribeResponse {
  return create(SubscribeResponseSchema, { event: { case: "messageUpdated", value: { message: m } } });
}

export function stateChanged(init: StateInit): SubscribeResponse {
  return create(SubscribeResponseSchema, { event: { case: "stateChanged", value: taskState(init) } });
}

export { AskKind, SayKind };
