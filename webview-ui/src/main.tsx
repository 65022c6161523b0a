import { createRoot } from "react-dom/client";
import "@vscode/codicons/dist/codicon.css";
import "./styles.css";
import { App } from "./App";
import { Controller } from "./state/controller";
import { PostMessageClient, vscodePort } from "./rpc";

const ctrl = new Controller(new PostMessageClient(vscodePort()));
createRoot(document.getElementById("root")!).render(<App ctrl={ctrl} />);
