// Mermaid loads the (large) mermaid library only when a diagram appears.

import { useEffect, useRef, useState } from "react";

let seq = 0;

export function Mermaid({ code }: { code: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string>();
  useEffect(() => {
    let cancelled = false;
    const id = `cairn-mermaid-${++seq}`;
    const dark = document.body.classList.contains("vscode-dark") || document.body.classList.contains("vscode-high-contrast");
    import("mermaid")
      .then(async ({ default: mermaid }) => {
        mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: dark ? "dark" : "default" });
        const { svg } = await mermaid.render(id, code);
        if (!cancelled && ref.current) ref.current.innerHTML = svg;
      })
      .catch((e: unknown) => {
        if (!cancelled) setError(e instanceof Error ? e.message : String(e));
      });
    return () => {
      cancelled = true;
    };
  }, [code]);
  if (error)
    return (
      <div className="mermaid-error">
        <div className="error-text">Diagram error: {error}</div>
        <pre>{code}</pre>
      </div>
    );
  return <div className="mermaid" ref={ref} role="img" aria-label="Mermaid diagram" />;
}
