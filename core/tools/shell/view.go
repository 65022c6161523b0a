package shell

import (
	"bytes"
	"unicode/utf8"
)

// DefaultByteLimit caps the bytes of command output shown to the model and the chat when the
// setting is 0; DefaultLineLimit caps its lines.
const DefaultByteLimit = 50_000

// view is the bounded picture of a command's output that the chat row and the model get: the
// first lines and the last lines, with a count of what was left out between them. It takes
// output in chunks of any size and holds at most about twice its caps, so a command printing
// gigabytes costs as little memory as one printing a page.
//
// Half of each cap goes to the head, the rest to the tail. Cuts fall at line ends; a single
// line longer than the byte cap is cut inside (at a rune boundary).
type view struct {
	headLines, tailLines int
	headBytes, tailBytes int

	head     []byte
	headNL   int  // newlines in head
	headOpen int  // bytes of an unfinished line at the end of head
	headDone bool // head is full: everything else goes to tail

	tail   []byte
	tailNL int // newlines in tail

	omittedLines int   // newlines in the text cut out between head and tail
	omittedBytes int64 // bytes cut out
	total        int64 // bytes written
}

// newView returns a view keeping at most lines lines and about bytes bytes (<= 0: defaults).
func newView(lines, bytes int) *view {
	if lines <= 0 {
		lines = DefaultLineLimit
	}
	if bytes <= 0 {
		bytes = DefaultByteLimit
	}
	v := &view{headLines: lines / 2, headBytes: bytes / 2}
	v.tailLines = lines - v.headLines
	v.tailBytes = bytes - v.headBytes
	if v.headLines == 0 {
		v.headDone = true // a one-line cap keeps only the end, which says how it went
	}
	return v
}

// write adds output.
func (v *view) write(p []byte) {
	v.total += int64(len(p))
	if !v.headDone {
		p = v.writeHead(p)
		if len(p) == 0 {
			return
		}
	}
	v.tail = append(v.tail, p...)
	v.tailNL += bytes.Count(p, nl)
	// Trimming copies the tail, so it waits until the tail is twice its cap: amortised O(1)
	// per byte however the output is chunked.
	if len(v.tail) > 2*v.tailBytes || v.tailNL > 2*v.tailLines {
		v.trim()
	}
}

var nl = []byte{'\n'}

// writeHead adds to the head what fits and returns the rest, for the tail. The head takes
// whole lines only, so the result does not depend on how the output was chunked: an
// unfinished last line waits at the end of the head (headOpen bytes) until it ends within the
// cap, or goes to the tail when it cannot. Only a first line longer than the cap is cut.
func (v *view) writeHead(p []byte) []byte {
	for v.headNL < v.headLines {
		if len(p) == 0 {
			return nil
		}
		room := v.headBytes - len(v.head)
		i := bytes.IndexByte(p, '\n')
		if i >= 0 && i+1 <= room {
			v.head = append(v.head, p[:i+1]...)
			v.headNL++
			v.headOpen = 0
			p = p[i+1:]
			continue
		}
		if i < 0 && len(p) <= room {
			v.head = append(v.head, p...)
			v.headOpen += len(p)
			return nil
		}
		// The line being written does not fit.
		if v.headNL == 0 {
			n := runeStart(p, room)
			v.head = append(v.head, p[:n]...)
			p = p[n:]
		} else if v.headOpen > 0 {
			open := v.head[len(v.head)-v.headOpen:]
			p = append(append([]byte(nil), open...), p...)
			v.head = v.head[:len(v.head)-v.headOpen]
		}
		break
	}
	v.headOpen = 0
	v.headDone = true
	return p
}

// trim cuts the front of the tail down to the caps, counting what it cuts.
func (v *view) trim() {
	cut := 0
	if over := len(v.tail) - v.tailBytes; over > 0 {
		cut = over
		if v.tail[cut-1] == '\n' {
			// The cut falls at the start of a line.
		} else if i := bytes.IndexByte(v.tail[cut:], '\n'); i >= 0 && cut+i+1 < len(v.tail) {
			cut += i + 1 // start the tail at a line
		} else {
			cut = runeStart(v.tail, cut) // the last line alone is too long: keep its end
		}
	}
	// Keep at most tailLines lines, an unfinished last line counting as one.
	rest := v.tail[cut:]
	lines := bytes.Count(rest, nl)
	if len(rest) > 0 && rest[len(rest)-1] != '\n' {
		lines++
	}
	for ; lines > v.tailLines; lines-- {
		cut += bytes.IndexByte(v.tail[cut:], '\n') + 1
	}
	if cut == 0 {
		return
	}
	dropped := bytes.Count(v.tail[:cut], nl)
	v.omittedLines += dropped
	v.omittedBytes += int64(cut)
	v.tailNL -= dropped
	v.tail = append([]byte(nil), v.tail[cut:]...)
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(p []byte, i int) int {
	for i > 0 && i < len(p) && !utf8.RuneStart(p[i]) {
		i--
	}
	return i
}

// elided reports whether anything was left out.
func (v *view) elided() bool {
	v.trim()
	return v.omittedBytes > 0
}

// render returns the head, a note from note when something was left out, and the tail.
// note gets the count of lines and bytes cut.
func (v *view) render(note func(lines int, bytes int64) string) string {
	v.trim()
	if v.omittedBytes == 0 {
		return string(v.head) + string(v.tail)
	}
	var b bytes.Buffer
	b.Grow(len(v.head) + len(v.tail) + 200)
	b.Write(v.head)
	if len(v.head) > 0 && !bytes.HasSuffix(v.head, nl) {
		b.WriteByte('\n')
	}
	b.WriteString(note(v.omittedLines, v.omittedBytes))
	b.WriteByte('\n')
	b.Write(v.tail)
	return b.String()
}
