// ContextMenu is the @ / / popup above the input: a listbox driven from the textarea's keys.

export interface MenuItem {
  id: string;
  label: string;
  detail?: string;
  icon: string;
  /** Text that replaces the active token; undefined for hints that cannot be chosen. */
  insert?: string;
}

export function ContextMenu({
  items,
  selected,
  onChoose,
  onHover,
  label,
  loading,
}: {
  items: MenuItem[];
  selected: number;
  onChoose(i: number): void;
  onHover(i: number): void;
  label: string;
  loading: boolean;
}) {
  return (
    <div className="context-menu" role="listbox" aria-label={label} id="cairn-context-menu">
      {items.length === 0 && <div className="menu-empty">{loading ? "Searching…" : "No results"}</div>}
      {items.map((it, i) => (
        <div
          key={it.id}
          id={`cairn-menu-${i}`}
          role="option"
          aria-selected={i === selected}
          aria-disabled={it.insert === undefined}
          className={`menu-item${i === selected ? " selected" : ""}${it.insert === undefined ? " hint" : ""}`}
          onMouseDown={(e) => {
            e.preventDefault();
            if (it.insert !== undefined) onChoose(i);
          }}
          onMouseEnter={() => onHover(i)}
        >
          <span className={`codicon codicon-${it.icon}`} aria-hidden />
          <span className="menu-label">{it.label}</span>
          {it.detail && <span className="menu-detail">{it.detail}</span>}
        </div>
      ))}
    </div>
  );
}
