package browser

import (
	"context"
	"errors"
	"fmt"

	"github.com/chromedp/chromedp"
)

// Renderer renders pages that build their text with JavaScript, each in a browser of its own
// that is closed before Render returns (web_fetch and @url mentions use it for pages whose
// HTML holds no text).
type Renderer struct {
	Options Options
}

// Render opens u, lets it settle, and returns the document's HTML.
func (r Renderer) Render(ctx context.Context, u string) (html string, err error) {
	s := NewSession(r.Options)
	defer func() {
		if cerr := s.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	if _, err := s.Launch(ctx, u); err != nil {
		return "", err
	}
	return s.HTML(ctx)
}

// HTML returns the open page's document as HTML.
func (s *Session) HTML(ctx context.Context) (string, error) {
	s.act.Lock()
	defer s.act.Unlock()
	if s.stop == nil {
		return "", ErrNotOpen
	}
	c, cancel := context.WithCancel(s.tab)
	defer context.AfterFunc(ctx, cancel)()
	defer cancel()
	html, err := chromedp.Run(c, chromedp.Evaluate[string]("document.documentElement.outerHTML"))
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("browser: reading the page: %w", err)
	}
	return html, nil
}

// TestConnection checks that a browser can be driven with opts: it starts it (or attaches to
// the remote one), opens a blank tab and closes it. It backs the "test connection" button of
// the remote browser setting.
func TestConnection(ctx context.Context, opts Options) error {
	s := NewSession(opts)
	s.act.Lock()
	err := s.startLocked(ctx)
	s.act.Unlock()
	return errors.Join(err, s.Close())
}
