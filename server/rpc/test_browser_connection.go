package rpc

import (
	"context"
	"time"

	"github.com/cairnhq/cairn/core/tools/browser"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// browserTestTimeout bounds a connection test: a browser starts in a second or two.
const browserTestTimeout = 20 * time.Second

// TestBrowserConnection starts the browser the request (else the settings) names, or attaches
// to the remote one, and closes it. A failure is the answer, not an RPC error.
func (s *Services) TestBrowserConnection(ctx context.Context, req *cairnv1.TestBrowserConnectionRequest) (*cairnv1.TestBrowserConnectionResponse, error) {
	cur := s.b.Settings.Get()
	w, h := cur.BrowserSize()
	opts := browser.Options{ExecPath: cur.BrowserPath, RemoteURL: cur.BrowserRemoteURL, Width: w, Height: h}
	if req.GetRemoteUrl() != "" || req.GetBrowserPath() != "" {
		opts.RemoteURL, opts.ExecPath = req.GetRemoteUrl(), req.GetBrowserPath()
	}
	ctx, cancel := context.WithTimeout(ctx, browserTestTimeout)
	defer cancel()
	if err := browser.TestConnection(ctx, opts); err != nil {
		return &cairnv1.TestBrowserConnectionResponse{Error: clean(err.Error())}, nil
	}
	return &cairnv1.TestBrowserConnectionResponse{Ok: true}, nil
}
