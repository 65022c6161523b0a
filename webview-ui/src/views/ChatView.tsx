// ChatView: header, virtualized messages, ask buttons and the input. Always mounted (hidden
// behind other views) so the draft and scroll position survive navigation.

import { useState } from "react";
import type { Controller } from "../state/controller";
import { useApp } from "../state/appStore";
import { MessageList } from "../components/MessageList";
import { AskBar, useOpenAsk } from "../components/AskBar";
import { ChatInput } from "../components/ChatInput";
import { TaskHeader } from "../components/TaskHeader";
import { AutoApproveBar } from "../components/AutoApproveBar";
import { askButtons } from "../util/askButtons";
import { NewTaskPanel } from "./NewTaskPanel";

export function ChatView({ ctrl, hidden }: { ctrl: Controller; hidden: boolean }) {
  const taskId = useApp(ctrl.app, (s) => s.taskId);
  const [text, setText] = useState("");
  const [images, setImages] = useState<string[]>([]);
  const { ask } = useOpenAsk(ctrl);
  const cfg = askButtons(ask);
  const draft = {
    text,
    images,
    setText,
    setImages,
    clear: () => {
      setText("");
      setImages([]);
    },
  };

  const send = () => {
    const t = text.trim();
    if (!t && images.length === 0) return;
    void ctrl.send(t, { images, files: [] });
    draft.clear();
  };

  return (
    <main className="chat-view" hidden={hidden} aria-label="Chat">
      {taskId ? (
        <>
          <TaskHeader ctrl={ctrl} />
          <MessageList store={ctrl.task} />
        </>
      ) : (
        <NewTaskPanel ctrl={ctrl} />
      )}
      <AskBar ctrl={ctrl} draft={draft} />
      <AutoApproveBar ctrl={ctrl} />
      <ChatInput
        ctrl={ctrl}
        draft={draft}
        placeholder={taskId ? cfg.placeholder : "Type your task here (@ to add context, / for commands)"}
        onSend={send}
      />
    </main>
  );
}
