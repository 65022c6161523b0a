package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/mcp"
)

// Progress is one progress notification of a running call.
type Progress struct {
	Progress, Total float64
	Message         string
}

// Content types of a result block.
const (
	ContentText         = "text"
	ContentImage        = "image"
	ContentAudio        = "audio"
	ContentResource     = "resource"      // embedded resource (text or blob)
	ContentResourceLink = "resource_link" // a link the model can read with access_mcp_resource
)

// Content is one block of a tool result or of a resource.
type Content struct {
	Type     string
	Text     string // text, or an embedded text resource
	MIMEType string
	Data     []byte // image, audio or blob bytes
	URI      string // embedded resource or link
	Name     string // link
	// Description is a link's description.
	Description string
}

// CallResult is what a tool returned.
type CallResult struct {
	Content []Content
	// Structured is the tool's structuredContent as JSON ("" when none).
	Structured string
	// IsError is set when the tool reported a failure (the model should see it as one).
	IsError bool
}

// Tool returns one tool of a connected server.
func (h *Hub) Tool(server, tool string) (Tool, error) {
	c, err := h.conn(server)
	if err != nil {
		return Tool{}, err
	}
	if _, err := c.session(); err != nil {
		return Tool{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.tools {
		if t.Name == tool {
			return t, nil
		}
	}
	names := make([]string, 0, len(c.tools))
	for _, t := range c.tools {
		names = append(names, t.Name)
	}
	return Tool{}, fmt.Errorf("%w: %q has no tool %q (it has: %s)", ErrUnknownTool, server, tool, strings.Join(names, ", "))
}

// CheckArguments validates a tool call's arguments (a JSON object) against the tool's input
// schema. It returns ErrBadArguments with what is wrong, or the errors of Tool. A schema the
// validator cannot use (an unreachable $ref, a draft other than 2020-12 and draft-07) checks
// nothing: the server still validates.
func (h *Hub) CheckArguments(server, tool string, args json.RawMessage) error {
	t, err := h.Tool(server, tool)
	if err != nil {
		return err
	}
	c, err := h.conn(server)
	if err != nil {
		return err
	}
	sch := c.schema(t)
	var inst any
	if err := json.Unmarshal(args, &inst); err != nil {
		return fmt.Errorf("%w: not JSON: %w", ErrBadArguments, err)
	}
	if _, ok := inst.(map[string]any); !ok {
		return fmt.Errorf("%w: arguments must be a JSON object", ErrBadArguments)
	}
	if sch == nil {
		return nil
	}
	if err := sch.Validate(inst); err != nil {
		// "validating root: " says where in the schema, which the model does not see.
		return fmt.Errorf("%w: %s", ErrBadArguments, strings.TrimPrefix(err.Error(), "validating root: "))
	}
	return nil
}

// schema resolves a tool's input schema once per tools/list, on the first call that checks
// its arguments. The validator (github.com/google/jsonschema-go) has no meta-schemas to
// compile when the process starts (docs/performance.md, "P5 — the daemon at rest"); with no
// loader it refuses a remote $ref, so validation never reaches the network.
func (c *conn) schema(t Tool) *jsonschema.Resolved {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.schemas[t.Name]; ok {
		return s
	}
	if c.schemas == nil {
		c.schemas = map[string]*jsonschema.Resolved{}
	}
	sch, err := resolveSchema(t.InputSchema)
	if err != nil {
		c.hub.opts.Logger.Debug("mcp: input schema not checked", "server", c.name, "tool", t.Name, "err", err)
		sch = nil
	}
	c.schemas[t.Name] = sch
	return sch
}

// resolveSchema parses and resolves an input schema for validation.
func resolveSchema(doc string) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(doc), &s); err != nil {
		return nil, err
	}
	if !slices.Contains(knownDrafts, s.Schema) {
		// The validator refuses every instance of a draft it does not implement.
		return nil, fmt.Errorf("%w: $schema %q", errUnknownDraft, s.Schema)
	}
	return s.Resolve(nil)
}

// knownDrafts are the $schema values the validator implements ("" is 2020-12).
var knownDrafts = []string{"", "https://json-schema.org/draft/2020-12/schema",
	"http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#"}

// CallTool calls a tool of a connected server within the server's timeout. args is a JSON
// object (check it first with CheckArguments). progress, when not nil, receives the server's
// progress notifications for this call, on the transport's goroutine.
func (h *Hub) CallTool(ctx context.Context, server, tool string, args json.RawMessage, progress func(Progress)) (CallResult, error) {
	c, err := h.conn(server)
	if err != nil {
		return CallResult{}, err
	}
	s, err := c.session()
	if err != nil {
		return CallResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	if len(bytes.TrimSpace(args)) > 0 {
		req.Params.Arguments = args
	}
	if progress != nil {
		token := h.nextToken()
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
		c.mu.Lock()
		c.progress[token] = progress
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			delete(c.progress, token)
			c.mu.Unlock()
		}()
	}
	res, err := s.client.CallTool(ctx, req)
	if err != nil {
		return CallResult{}, c.callErr(ctx, s, "tools/call "+tool, err)
	}
	out := CallResult{IsError: res.IsError, Content: contents(res.Content)}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			out.Structured = string(b)
		}
	}
	return out, nil
}

// ReadResource reads a resource (a listed URI or one made from a template).
func (h *Hub) ReadResource(ctx context.Context, server, uri string) ([]Content, error) {
	c, err := h.conn(server)
	if err != nil {
		return nil, err
	}
	s, err := c.session()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := s.client.ReadResource(ctx, req)
	if err != nil {
		return nil, c.callErr(ctx, s, "resources/read "+uri, err)
	}
	out := make([]Content, 0, len(res.Contents))
	for _, rc := range res.Contents {
		out = append(out, resourceContent(rc))
	}
	return out, nil
}

// GetPrompt expands a server's prompt with its arguments into text: the messages' text, one
// after the other (other blocks are named, not inlined).
func (h *Hub) GetPrompt(ctx context.Context, server, prompt string, args map[string]string) (string, error) {
	c, err := h.conn(server)
	if err != nil {
		return "", err
	}
	s, err := c.session()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	req := mcp.GetPromptRequest{}
	req.Params.Name = prompt
	req.Params.Arguments = args
	res, err := s.client.GetPrompt(ctx, req)
	if err != nil {
		return "", c.callErr(ctx, s, "prompts/get "+prompt, err)
	}
	var parts []string
	for _, m := range res.Messages {
		for _, ct := range contents([]mcp.Content{m.Content}) {
			switch ct.Type {
			case ContentText:
				parts = append(parts, ct.Text)
			case ContentResource:
				if ct.Text != "" {
					parts = append(parts, ct.Text)
				} else {
					parts = append(parts, "["+ct.URI+"]")
				}
			default:
				parts = append(parts, "["+ct.Type+" "+ct.MIMEType+"]")
			}
		}
	}
	return strings.Join(parts, "\n\n"), nil
}

// callErr words a failed request. A transport failure (the server went away) ends the
// session, so the conn reconnects.
func (c *conn) callErr(ctx context.Context, s *session, what string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		return fmt.Errorf("mcp: %s on %q: no answer within %d s: %w", what, c.name, c.config().timeoutSeconds(), err)
	}
	var ne net.Error
	if errors.As(err, &ne) || select1(s.lost) {
		s.markLost(err)
	}
	return fmt.Errorf("mcp: %s on %q: %w", what, c.name, err)
}

// contents converts result blocks (mcp-go decodes them as values; pointers are accepted too).
func contents(cs []mcp.Content) []Content {
	out := make([]Content, 0, len(cs))
	for _, ct := range cs {
		switch v := ct.(type) {
		case mcp.TextContent:
			out = append(out, Content{Type: ContentText, Text: v.Text})
		case *mcp.TextContent:
			out = append(out, Content{Type: ContentText, Text: v.Text})
		case mcp.ImageContent:
			out = append(out, media(ContentImage, v.MIMEType, v.Data))
		case *mcp.ImageContent:
			out = append(out, media(ContentImage, v.MIMEType, v.Data))
		case mcp.AudioContent:
			out = append(out, media(ContentAudio, v.MIMEType, v.Data))
		case *mcp.AudioContent:
			out = append(out, media(ContentAudio, v.MIMEType, v.Data))
		case mcp.EmbeddedResource:
			out = append(out, resourceContent(v.Resource))
		case *mcp.EmbeddedResource:
			out = append(out, resourceContent(v.Resource))
		case mcp.ResourceLink:
			out = append(out, Content{Type: ContentResourceLink, URI: v.URI, Name: v.Name, Description: v.Description, MIMEType: v.MIMEType})
		case *mcp.ResourceLink:
			out = append(out, Content{Type: ContentResourceLink, URI: v.URI, Name: v.Name, Description: v.Description, MIMEType: v.MIMEType})
		default:
			if b, err := json.Marshal(ct); err == nil {
				out = append(out, Content{Type: ContentText, Text: string(b)})
			}
		}
	}
	return out
}

func media(typ, mime, data string) Content {
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return Content{Type: ContentText, Text: fmt.Sprintf("[%s %s that is not valid base64]", typ, mime)}
	}
	return Content{Type: typ, MIMEType: mime, Data: b}
}

func resourceContent(rc mcp.ResourceContents) Content {
	switch v := rc.(type) {
	case mcp.TextResourceContents:
		return Content{Type: ContentResource, URI: v.URI, MIMEType: v.MIMEType, Text: v.Text}
	case *mcp.TextResourceContents:
		return Content{Type: ContentResource, URI: v.URI, MIMEType: v.MIMEType, Text: v.Text}
	case mcp.BlobResourceContents:
		c := media(ContentResource, v.MIMEType, v.Blob)
		c.URI = v.URI
		return c
	case *mcp.BlobResourceContents:
		c := media(ContentResource, v.MIMEType, v.Blob)
		c.URI = v.URI
		return c
	}
	return Content{Type: ContentText, Text: "[a resource of an unknown kind]"}
}

// WaitReady waits while a server is connecting (just after the daemon started, or after a
// restart), bounded by ctx and the server's timeout, so that a call the model makes early is
// not refused for a connection that is a moment away. It returns nil once the server is
// connected, else the reason it is not (ErrNotConnected, ErrUnknownServer).
func (h *Hub) WaitReady(ctx context.Context, server string) error {
	c, err := h.conn(server)
	if err != nil {
		return err
	}
	changes, cancel := h.Subscribe()
	defer cancel()
	ctx, stop := context.WithTimeout(ctx, c.timeout())
	defer stop()
	for {
		c.mu.Lock()
		connecting := c.status == StatusConnecting && c.sess == nil
		c.mu.Unlock()
		if !connecting {
			_, err := c.session()
			return err
		}
		select {
		case <-ctx.Done():
			_, err := c.session()
			return err
		case _, ok := <-changes:
			if !ok {
				return ErrClosed
			}
		}
	}
}
