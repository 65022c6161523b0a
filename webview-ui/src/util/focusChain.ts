// The focus chain is a markdown checklist ("- [ ] item" / "- [x] item").

export interface ChecklistItem {
  text: string;
  done: boolean;
}

const itemRe = /^\s*[-*]\s+\[([ xX])\]\s+(.*)$/;

export function parseChecklist(markdown: string): ChecklistItem[] {
  const items: ChecklistItem[] = [];
  for (const line of markdown.split("\n")) {
    const m = itemRe.exec(line);
    if (m) items.push({ done: m[1] !== " ", text: m[2]!.trim() });
  }
  return items;
}

export function serializeChecklist(items: ChecklistItem[]): string {
  return items.map((i) => `- [${i.done ? "x" : " "}] ${i.text}`).join("\n");
}
