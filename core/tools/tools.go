// Package tools defines what a tool is to the agent loop: its model-facing Spec, the parsed
// Call it receives, the Result it returns, and the small host interfaces tool families consume.
//
// Tools have two error channels (docs/conventions.md, "Two kinds of error"). What the model can fix
// — a bad parameter, a SEARCH block that does not match, a denied approval, an ignored path — is a
// Result with IsError set and a clear Text. What broke — an I/O failure, a lost host, a bug — is a
// Go error wrapped with %w; the loop reports it and the task survives.
//
// Tool families live in sub-packages (files, search, codedefs, shell, edit, interact, …). A
// family never imports core/task or a sibling family.
package tools

import (
	"context"
	"fmt"
	"sort"

	"github.com/cairnhq/cairn/core/toolnames"
)

// Category groups tools for auto-approval and for PLAN mode.
type Category string

// Categories of approval (docs/tools.md, "Approval"). Interact tools (questions, completion) are
// never "approved": they are the conversation itself.
const (
	CategoryRead    Category = "read"
	CategoryEdit    Category = "edit"
	CategoryCommand Category = "command"
	CategoryBrowser Category = "browser"
	// CategoryLocal is a web page on a loopback or private address (netaddr.go).
	CategoryLocal    Category = "local"
	CategoryMCP      Category = "mcp"
	CategoryInteract Category = "interact"
)

// Param is one XML parameter of a tool.
type Param struct {
	Name        string
	Required    bool
	Description string // model-facing, one or more sentences
	Usage       string // placeholder shown in the usage example, e.g. "File path here"
}

// Spec is everything the prompt and the parser need to know about a tool.
type Spec struct {
	Name        string
	Description string // model-facing; lives in an embedded .md file of the family
	Params      []Param
	Category    Category
	// PlanSafe tools may run in PLAN mode (docs/tools.md, "PLAN mode").
	PlanSafe bool
	// ArgParam names the parameter shown in the result header `[name for 'arg'] Result:`.
	ArgParam string
	// NeedsImages tools are offered only to models that see images (their results are
	// screenshots): ForModel drops them for the others.
	NeedsImages bool
}

// ForModel returns the specs a model is offered: all of them when it sees images, else those
// that do not need images. A task asks for the model of the mode at hand, so a PLAN model
// without images is not offered what the ACT model is.
func ForModel(specs []Spec, images bool) []Spec {
	if images {
		return specs
	}
	out := make([]Spec, 0, len(specs))
	for _, s := range specs {
		if !s.NeedsImages {
			out = append(out, s)
		}
	}
	return out
}

// ParamNames lists the spec's parameter names plus task_progress, which every tool accepts.
func (s Spec) ParamNames() []string {
	names := make([]string, 0, len(s.Params)+1)
	for _, p := range s.Params {
		names = append(names, p.Name)
	}
	return append(names, TaskProgressParam)
}

// TaskProgressParam is the focus-chain checklist any tool call may carry (docs/tools.md,
// "task_progress").
const TaskProgressParam = toolnames.TaskProgress

// Call is one parsed tool use. Params holds only parameters that appeared.
type Call struct {
	Name    string
	Params  map[string]string
	Partial bool
}

// Param returns a parameter value and whether it was present.
func (c Call) Param(name string) (string, bool) {
	v, ok := c.Params[name]
	return v, ok
}

// Image is an image block returned to a vision model (read_file of a png, a browser screenshot).
type Image struct {
	MediaType string // image/png, image/jpeg, image/webp
	Data      []byte
}

// Result is what the model receives for a tool call (without the `[tool for 'arg'] Result:`
// header, which the loop adds).
type Result struct {
	Text    string
	Images  []Image
	IsError bool
	// Changed reports files the tool modified (absolute paths), for checkpoints and the
	// recently-modified tracker.
	Changed []string
	// Read reports files whose content the model has now seen (absolute paths).
	Read []string
	// UserFeedback carries text the user typed while approving or rejecting; the loop adds it
	// to the result as a <feedback> block and shows it as user_feedback.
	UserFeedback string
	// Rejected is set when the user said no; the loop stops executing further tools.
	Rejected bool
	// Completed is set by attempt_completion once the user has accepted the result.
	Completed bool
	// Condensed holds the summary the user accepted (condense): the conversation continues
	// from it, the earlier turns are no longer sent.
	Condensed string
}

// Errorf builds a model-facing error result.
func Errorf(format string, args ...any) Result {
	return Result{Text: fmt.Sprintf(format, args...), IsError: true}
}

// MissingParam is the model-facing result for a required parameter that did not appear.
func MissingParam(tool, param string) Result {
	return Errorf("Missing value for required parameter '%s'. Please retry with complete response.\n\n"+
		"Cairn tried to use %s without value for required parameter '%s'.", param, tool, param)
}

// Tool is one executable tool.
type Tool interface {
	Spec() Spec
	// Run executes a complete call. It blocks until the work (including any approval the tool
	// asks through env) is done or ctx is cancelled. It must not retain env after returning.
	Run(ctx context.Context, env *Env, call Call) (Result, error)
}

// Previewer is implemented by tools that show something while their call is still streaming
// (edit tools fill the diff view, commands show the command being typed). Preview is called
// with each new partial call, in order, then never again once Run starts.
type Previewer interface {
	Preview(ctx context.Context, env *Env, call Call) error
}

// Discarder is implemented by Previewers that hold something open while a call streams (a
// diff view). Discard undoes it when the call will not run: the reply was cut off, the stream
// broke, or the call is refused. It is safe to call when nothing is open.
type Discarder interface {
	Discard(ctx context.Context)
}

// Registry holds the tools offered to the model, in a stable order.
type Registry struct {
	byName map[string]Tool
	order  []string
}

// NewRegistry returns a registry with the given tools; a duplicate name panics at start-up
// (a programming error caught by every test that builds the registry).
func NewRegistry(ts ...Tool) *Registry {
	r := &Registry{byName: map[string]Tool{}}
	for _, t := range ts {
		r.Add(t)
	}
	return r
}

// Add registers t.
func (r *Registry) Add(t Tool) {
	name := t.Spec().Name
	if _, dup := r.byName[name]; dup {
		panic("tools: duplicate tool " + name)
	}
	r.byName[name] = t
	r.order = append(r.order, name)
}

// Get returns the tool with that name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// DiscardPreviews undoes what the tools (Discarders) opened while a call streamed: the call
// will not run. It goes on after ctx is cancelled (a cancelled call's diff view still closes).
// A nil registry has nothing open.
func (r *Registry) DiscardPreviews(ctx context.Context) {
	if r == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	for _, n := range r.order {
		if d, ok := r.byName[n].(Discarder); ok {
			d.Discard(ctx)
		}
	}
}

// Specs returns every tool's spec in registration order.
func (r *Registry) Specs() []Spec {
	out := make([]Spec, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.byName[n].Spec())
	}
	return out
}

// Offerer is implemented by a tool that can have nothing to offer for a while (use_skill
// while no skill is usable): such a tool is left out of the tools offered to the model.
type Offerer interface {
	Offered() bool
}

// OfferedSpecs is Specs without the tools that have nothing to offer right now: the functions
// a native tool-calling request lists, the same tools the system prompt describes.
func (r *Registry) OfferedSpecs() []Spec {
	out := make([]Spec, 0, len(r.order))
	for _, n := range r.order {
		t := r.byName[n]
		if o, ok := t.(Offerer); ok && !o.Offered() {
			continue
		}
		out = append(out, t.Spec())
	}
	return out
}

// ModeOfferer is implemented by a tool whose offer depends on the task's mode (docs/modes.md):
// it is left out of the tools offered in a mode that does not have it.
type ModeOfferer interface {
	OfferedIn(mode string) bool
}

// OfferedSpecsIn is OfferedSpecs without the tools the mode does not offer.
func (r *Registry) OfferedSpecsIn(mode string) []Spec {
	return r.InMode(mode, r.OfferedSpecs())
}

// InMode keeps the specs whose tools are offered in mode, in order.
func (r *Registry) InMode(mode string, specs []Spec) []Spec {
	out := make([]Spec, 0, len(specs))
	for _, s := range specs {
		if o, ok := r.byName[s.Name].(ModeOfferer); ok && !o.OfferedIn(mode) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// Grammar returns tool name → parameter names (with task_progress), the input the streaming
// parser needs to recognise tool tags.
func (r *Registry) Grammar() map[string][]string {
	g := make(map[string][]string, len(r.order))
	for _, n := range r.order {
		g[n] = r.byName[n].Spec().ParamNames()
	}
	return g
}

// Names returns the registered tool names, sorted.
func (r *Registry) Names() []string {
	names := append([]string(nil), r.order...)
	sort.Strings(names)
	return names
}
