// Markdown renders assistant text: GFM, highlighted code blocks with copy buttons, lazily
// loaded mermaid diagrams, and <thinking> sections folded.

import { memo, useRef, useState, type ReactElement, type ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import rehypeHighlight from "rehype-highlight";
import { Mermaid } from "./Mermaid";
import { CopyButton } from "./CopyButton";

const remarkPlugins = [remarkGfm];
/**
 * react-markdown builds a new processor on every render, which calls each plugin's attacher
 * again; rehype-highlight's attacher creates a highlighter and registers every common grammar,
 * which costs more than parsing and rendering a short message. The highlighter is made once here
 * and every processor gets the same transform (it keeps no state between trees).
 */
const highlight = rehypeHighlight({ detect: false, plainText: ["mermaid", "text", "txt"] });
const rehypePlugins: NonNullable<Parameters<typeof ReactMarkdown>[0]["rehypePlugins"]> = [() => highlight];

function textOf(node: ReactNode): string {
  if (node == null || typeof node === "boolean") return "";
  if (typeof node === "string" || typeof node === "number") return String(node);
  if (Array.isArray(node)) return node.map(textOf).join("");
  if (typeof node === "object" && "props" in node) return textOf((node.props as { children?: ReactNode }).children);
  return "";
}

function makeComponents(streaming: boolean): Components {
  return {
    pre({ children }) {
      const child = Array.isArray(children) ? children[0] : children;
      const props = (child as { props?: { className?: string; children?: ReactNode } } | undefined)?.props;
      const lang = /language-(\S+)/.exec(props?.className ?? "")?.[1];
      const code = textOf(props?.children).replace(/\n$/, "");
      if (lang === "mermaid" && !streaming) return <Mermaid code={code} />;
      return (
        <div className="code-block">
          <div className="code-block-bar">
            <span className="code-lang">{lang ?? ""}</span>
            <CopyButton text={code} label="Copy code" />
          </div>
          <pre>{children}</pre>
        </div>
      );
    },
    a({ href, children }) {
      return (
        <a href={href} target="_blank" rel="noreferrer">
          {children}
        </a>
      );
    },
  };
}

const streamingComponents = makeComponents(true);
const doneComponents = makeComponents(false);

/**
 * Rendered markdown of finished text, by text. Virtualized rows unmount when scrolled away and
 * remount when scrolled back; the cache saves re-parsing and re-highlighting them (react-markdown's
 * Markdown is a plain function without hooks, so its element tree can be kept and reused).
 */
const renderCache = new Map<string, ReactElement>();
const RENDER_CACHE_SIZE = 400;

function renderMarkdown(text: string, streaming: boolean): ReactElement {
  const props = {
    remarkPlugins,
    rehypePlugins,
    components: streaming ? streamingComponents : doneComponents,
    children: text,
  };
  if (streaming) return ReactMarkdown(props);
  let el = renderCache.get(text);
  if (el) {
    renderCache.delete(text);
  } else {
    el = ReactMarkdown(props);
    if (renderCache.size >= RENDER_CACHE_SIZE) renderCache.delete(renderCache.keys().next().value!);
  }
  renderCache.set(text, el);
  return el;
}

const MarkdownBody = memo(function MarkdownBody({ text, streaming }: { text: string; streaming: boolean }) {
  return renderMarkdown(text, streaming);
});

/**
 * Streaming markdown is cut into blocks at blank lines outside code fences. Only the last block
 * of a streaming message changes, so earlier blocks keep their memoized render and the cost of a
 * delta stays proportional to the new text, not to the whole message. Completed blocks are
 * scanned once and stored as copies (a slice would keep the whole text of that moment alive).
 */
interface BlockState {
  done: string[];
  /** Offset in the text where the open (last) block starts. */
  offset: number;
}

const copyString = (s: string): string => (" " + s).slice(1);

/** scanBlocks extends st with the blocks completed in text[st.offset:]; returns the open block. */
export function scanBlocks(text: string, st: BlockState): string {
  let start = st.offset;
  let fence: string | undefined;
  let pos = start;
  while (pos < text.length) {
    let end = text.indexOf("\n", pos);
    if (end < 0) end = text.length;
    const line = text.slice(pos, end);
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (!fence) fence = f[1]!;
      else if (line.trim().startsWith(fence)) fence = undefined;
    } else if (!fence && line.trim() === "" && pos > start && end < text.length) {
      // A blank line ends a block unless the next line continues a list item (indented).
      if (!/^( {2}|\t)/.test(text.slice(end + 1, end + 3))) {
        const block = text.slice(start, pos);
        if (block.trim() !== "") st.done.push(copyString(block));
        start = end + 1;
        st.offset = start;
      }
    }
    pos = end + 1;
  }
  return text.slice(st.offset);
}

/** splitBlocks returns all blocks of a text (for tests and one-shot use). */
export function splitBlocks(text: string): string[] {
  const st: BlockState = { done: [], offset: 0 };
  const open = scanBlocks(text, st);
  return open.trim() !== "" ? [...st.done, open] : st.done;
}

function Blocks({ text, streaming }: { text: string; streaming: boolean }) {
  const ref = useRef<BlockState>({ done: [], offset: 0 });
  if (!streaming) return <MarkdownBody text={text} streaming={false} />;
  if (text.length < ref.current.offset) ref.current = { done: [], offset: 0 };
  const open = scanBlocks(text, ref.current);
  const done = ref.current.done;
  return (
    <>
      {done.map((b, i) => (
        <MarkdownBody key={i} text={b} streaming={false} />
      ))}
      {open.trim() !== "" && <MarkdownBody key={done.length} text={open} streaming />}
    </>
  );
}

interface Segment {
  thinking: boolean;
  text: string;
}

/** splitThinking separates <thinking>…</thinking> sections (an unclosed one runs to the end). */
export function splitThinking(text: string): Segment[] {
  const out: Segment[] = [];
  const re = /<thinking>([\s\S]*?)(?:<\/thinking>|$)/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push({ thinking: false, text: text.slice(last, m.index) });
    out.push({ thinking: true, text: m[1]!.trim() });
    last = m.index + m[0].length;
    if (m[0].length === 0) break;
  }
  if (last < text.length) out.push({ thinking: false, text: text.slice(last) });
  return out.filter((s) => s.text.trim() !== "");
}

export function Thinking({ text, streaming, label = "Thinking" }: { text: string; streaming: boolean; label?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="thinking">
      <button className="link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className={`codicon codicon-chevron-${open ? "down" : "right"}`} aria-hidden />
        {label}
      </button>
      {open && (
        <div className="thinking-body">
          <MarkdownBody text={text} streaming={streaming} />
        </div>
      )}
    </div>
  );
}

export function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  if (!text.includes("<thinking>")) {
    return (
      <div className="markdown">
        <Blocks text={text} streaming={streaming} />
      </div>
    );
  }
  return (
    <div className="markdown">
      {splitThinking(text).map((s, i) =>
        s.thinking ? (
          <Thinking key={i} text={s.text} streaming={streaming} />
        ) : (
          <Blocks key={i} text={s.text} streaming={streaming} />
        ),
      )}
    </div>
  );
}
