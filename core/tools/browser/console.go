package browser

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
)

// record is the tab's event listener: it keeps console lines and tracks requests in flight.
// It runs on chromedp's reader goroutine, so it only appends and updates a map.
func (s *Session) record(ev any) {
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		s.addConsole(string(e.Type), argsText(e.Args))
	case *runtime.EventExceptionThrown:
		s.addConsole("error", "Uncaught "+exceptionText(e.ExceptionDetails))
	case *log.EventEntryAdded:
		// A missing favicon is the browser's own request, not the page's problem.
		if e.Entry != nil && !strings.HasSuffix(e.Entry.URL, "/favicon.ico") {
			s.addConsole(string(e.Entry.Level), strings.TrimSpace(e.Entry.Text+" "+e.Entry.URL))
		}
	case *network.EventRequestWillBeSent:
		s.network(e.RequestID, true)
	case *network.EventLoadingFinished:
		s.network(e.RequestID, false)
	case *network.EventLoadingFailed:
		s.network(e.RequestID, false)
	}
}

func (s *Session) network(id network.RequestID, started bool) {
	s.ev.Lock()
	defer s.ev.Unlock()
	if s.inflight == nil {
		return
	}
	if started {
		s.inflight[id] = struct{}{}
	} else {
		delete(s.inflight, id)
	}
	s.lastNet = time.Now()
}

func (s *Session) addConsole(kind, text string) {
	if r := []rune(text); len(r) > maxConsoleLine {
		text = string(r[:maxConsoleLine]) + "…"
	}
	line := "[" + kind + "] " + text
	s.ev.Lock()
	defer s.ev.Unlock()
	if len(s.console) >= maxConsoleLines {
		s.dropped++
		return
	}
	s.console = append(s.console, line)
}

// argsText renders console arguments the way a developer reads them: strings as they are,
// other values by their JSON or the browser's description.
func argsText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		if a == nil {
			continue
		}
		parts = append(parts, objectText(a))
	}
	return strings.Join(parts, " ")
}

func objectText(a *runtime.RemoteObject) string {
	if a.Type == runtime.RemoteObjectTypeString {
		var s string
		if err := json.Unmarshal(a.Value, &s); err == nil {
			return s
		}
	}
	switch {
	case a.UnserializableValue != "":
		return string(a.UnserializableValue)
	case a.Description != "":
		return a.Description
	case len(a.Value) > 0:
		return string(a.Value)
	}
	return string(a.Type)
}

// exceptionText is the first line of the thrown value's description ("Error: boom"), else the
// protocol's text.
func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return "exception"
	}
	if d.Exception != nil {
		if desc := objectText(d.Exception); desc != "" {
			first, _, _ := strings.Cut(desc, "\n")
			return first
		}
	}
	return d.Text
}
