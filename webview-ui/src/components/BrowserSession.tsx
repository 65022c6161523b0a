// BrowserSession renders a browser_action session as one chat row: the launch URL, the latest
// screenshot (or any earlier action's) with the click marked by a ring that leaves the clicked
// spot visible, the console lines of that action, and the actions taken (each one selects its
// step). Clicking the screenshot enlarges it to fit the panel, with a close control.

import { useCallback, useMemo, useState, useSyncExternalStore } from "react";
import { useMessageCount, type TaskStore } from "../state/taskStore";
import { base64 } from "../util/format";
import { isClose, parseMouse, pngSize, sessionEnd, steps, type Step } from "../util/browserSession";

/** useSessionRows re-renders when any row of the session changes or a row is added. */
function useSessionRows(store: TaskStore, pos: number) {
  const count = useMessageCount(store);
  const subscribe = useCallback(
    (l: () => void) => {
      const offs: Array<() => void> = [];
      for (let i = pos; i < count; i++) offs.push(store.subscribeRow(i, l));
      return () => offs.forEach((off) => off());
    },
    [store, pos, count],
  );
  const end = sessionEnd(store.messages, pos);
  const version = useSyncExternalStore(subscribe, () => {
    let v = "";
    for (let i = pos; i < end; i++) v += `${store.rowVersion(i)},`;
    return v;
  });
  const last = store.messages[end - 1];
  // A session is over once it closed, or once something else happened after it.
  return { rows: store.messages.slice(pos, end), version, closed: end < count || (last !== undefined && isClose(last)) };
}

const actionLabels: Record<string, string> = {
  launch: "Launch",
  click: "Click",
  type: "Type",
  scroll_down: "Scroll down",
  scroll_up: "Scroll up",
  close: "Close",
};

export function BrowserSession({ store, pos, asking }: { store: TaskStore; pos: number; asking: boolean }) {
  const { rows, version, closed } = useSessionRows(store, pos);
  const all = useMemo(() => steps(rows), [rows.length, version]); // eslint-disable-line react-hooks/exhaustive-deps
  const [picked, setPicked] = useState<number | null>(null);
  const [enlarged, setEnlarged] = useState(false);
  // The pager walks the actions themselves, so its count is the number of actions. Until the
  // user picks one it follows the latest action that left a screenshot.
  let latestShot = -1;
  for (let i = all.length - 1; i >= 0 && latestShot < 0; i--) if (all[i]!.screenshot) latestShot = i;
  const shown = picked === null ? Math.max(latestShot, 0) : Math.min(picked, all.length - 1);
  // An action without a screenshot of its own (a close) shows the page as the last one left it.
  let shotAt = -1;
  for (let i = shown; i >= 0 && shotAt < 0; i--) if (all[i]!.screenshot) shotAt = i;
  const step = shotAt >= 0 ? all[shotAt] : undefined;
  const current = all[shown];
  const launchURL = all[0]?.detail ?? "";
  return (
    <div className={`browser-session${asking ? " pending" : ""}`} aria-label="Browser session">
      <div className="row-header">
        <span className="codicon codicon-globe" aria-hidden />
        <span className="row-title">{asking ? "Cairn wants to open this page in the browser:" : closed ? "Browser session (closed)" : "Browser session"}</span>
      </div>
      {launchURL && !step && (
        <div className="browser-url" aria-label="Launch URL" title={launchURL}>
          {launchURL}
        </div>
      )}
      {step && (
        <div className="browser-view">
          <div className="browser-url" aria-label="Page URL" title={step.url}>
            {step.url}
          </div>
          <Screenshot step={step} own={shotAt === shown} onClick={() => setEnlarged(true)} />
          {all.length > 1 && (
            <div className="browser-pager">
              <button className="link-button" disabled={shown <= 0} onClick={() => setPicked(shown - 1)} aria-label="Previous step">
                <span className="codicon codicon-chevron-left" aria-hidden />
              </button>
              <span>
                Step {shown + 1} of {all.length}: {actionLabels[current?.action ?? ""] ?? current?.action}
              </span>
              <button
                className="link-button"
                disabled={shown >= all.length - 1}
                onClick={() => setPicked(shown + 1)}
                aria-label="Next step"
              >
                <span className="codicon codicon-chevron-right" aria-hidden />
              </button>
            </div>
          )}
          <div className="browser-console" aria-label="Console output">
            {current?.logs ? (
              current.logs.split("\n").map((l, i) => (
                <div key={i} className={/^\[(error|warning)\]/.test(l) ? "console-line console-error" : "console-line"}>
                  {l}
                </div>
              ))
            ) : (
              <div className="muted">No new console output</div>
            )}
          </div>
        </div>
      )}
      <ol className="browser-actions">
        {all.map((s, i) => (
          <li key={i} aria-current={step && i === shown ? "step" : undefined}>
            {s.notes.map((n, j) => (
              <div key={j} className="muted browser-note">
                {n}
              </div>
            ))}
            <button className="link-button browser-action" title={s.detail || undefined} disabled={!step} onClick={() => setPicked(i)}>
              <span className="badge">{actionLabels[s.action] ?? s.action}</span> {actionDetail(s)}
            </button>
          </li>
        ))}
      </ol>
      {enlarged && step && (
        <div
          className="screenshot-overlay"
          role="dialog"
          aria-label="Enlarged screenshot"
          tabIndex={-1}
          ref={(el) => el?.focus()}
          onClick={() => setEnlarged(false)}
          onKeyDown={(e) => e.key === "Escape" && setEnlarged(false)}
        >
          <button className="icon-button screenshot-close" aria-label="Close enlarged screenshot" title="Close (Escape)" onClick={() => setEnlarged(false)}>
            <span className="codicon codicon-close" aria-hidden />
          </button>
          <Screenshot step={step} own={shotAt === shown} />
        </div>
      )}
    </div>
  );
}

/**
 * actionDetail is an action in words: a click points at the ring on its screenshot (its
 * coordinates are the tooltip) and typed text is quoted; the launch's page is the URL above.
 */
function actionDetail(s: Step): string {
  switch (s.action) {
    case "click":
      return s.screenshot && parseMouse(s.mouse) ? "where the ring on its screenshot shows" : "on the page";
    case "type":
      return s.detail ? `“${s.detail}”` : "";
    default:
      return "";
  }
}

function Screenshot({ step, own = true, onClick }: { step: Step; own?: boolean; onClick?: () => void }) {
  if (!step.screenshot) return null;
  const size = pngSize(step.screenshot);
  // The ring marks where this action clicked: only on the action's own screenshot.
  const mouse = own ? parseMouse(step.mouse) : undefined;
  const img = <img className="screenshot" src={`data:image/png;base64,${base64(step.screenshot)}`} alt="Browser screenshot" />;
  return (
    <div className="screenshot-frame">
      {onClick ? (
        <button className="screenshot-button" onClick={onClick} aria-label="Enlarge screenshot">
          {img}
        </button>
      ) : (
        img
      )}
      {size && mouse && (
        <span
          className="mouse-marker"
          aria-label={`Mouse at ${mouse.x},${mouse.y}`}
          style={{ left: `${(100 * mouse.x) / size.width}%`, top: `${(100 * mouse.y) / size.height}%` }}
        />
      )}
    </div>
  );
}
