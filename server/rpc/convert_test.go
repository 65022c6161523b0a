package rpc

import (
	"reflect"
	"testing"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// latin1 is "café.txt" in Latin-1: not UTF-8.
const latin1 = "caf\xe9.txt"

// poison sets every string in v (a pointer to a struct), in slices and map keys and values
// too, to invalid UTF-8, so a field the conversion forgets to clean cannot hide.
func poison(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			poison(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				poison(v.Field(i))
			}
		}
	case reflect.String:
		v.SetString(latin1)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.String {
			v.Set(reflect.ValueOf([]string{"ok", latin1, "\xff\xfe"}).Convert(v.Type()))
		}
	case reflect.Map:
		if v.Type().Key().Kind() == reflect.String {
			m := reflect.MakeMap(v.Type())
			val := reflect.New(v.Type().Elem()).Elem()
			poison(val)
			m.SetMapIndex(reflect.ValueOf(latin1).Convert(v.Type().Key()), val)
			v.Set(m)
		}
	}
}

// invalidStrings returns the paths of string fields in m that are not valid UTF-8.
func invalidStrings(m protoreflect.Message, path string) []string {
	var bad []string
	check := func(where string, v protoreflect.Value, fd protoreflect.FieldDescriptor) {
		switch {
		case fd.Kind() == protoreflect.StringKind:
			if !utf8.ValidString(v.String()) {
				bad = append(bad, where)
			}
		case fd.Message() != nil:
			bad = append(bad, invalidStrings(v.Message(), where)...)
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		where := path + "." + string(fd.Name())
		switch {
		case fd.IsList():
			for i := range v.List().Len() {
				check(where, v.List().Get(i), fd)
			}
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if fd.MapKey().Kind() == protoreflect.StringKind && !utf8.ValidString(k.String()) {
					bad = append(bad, where+"[key]")
				}
				check(where+"[value]", mv, fd.MapValue())
				return true
			})
		default:
			check(where, v, fd)
		}
		return true
	})
	return bad
}

// TestConversionsCleanEveryString: whatever a core value holds, the wire message marshals
// (grpc-go would refuse invalid UTF-8 and end the stream) and holds only valid UTF-8.
func TestConversionsCleanEveryString(t *testing.T) {
	payloads := []msg.Payload{nil, &msg.Tool{}, &msg.Command{}, &msg.CommandOutput{}, &msg.Followup{}, &msg.Completion{},
		&msg.APIRequest{}, &msg.Retry{}, &msg.NewTask{}, &msg.Browser{}, &msg.MCP{}, &msg.Checkpoint{}, &msg.Progress{}}
	tests := []struct {
		name    string
		convert func() proto.Message
	}{
		{"state", func() proto.Message {
			var s task.State
			poison(reflect.ValueOf(&s))
			return toState(s)
		}},
		{"summary", func() proto.Message {
			var m store.Meta
			poison(reflect.ValueOf(&m))
			return toSummary(m)
		}},
		{"settings", func() proto.Message {
			var s config.Settings
			poison(reflect.ValueOf(&s))
			return toSettings(s)
		}},
	}
	for _, p := range payloads {
		name := "message"
		if p != nil {
			name = reflect.TypeOf(p).Elem().Name()
		}
		tests = append(tests, struct {
			name    string
			convert func() proto.Message
		}{name, func() proto.Message {
			m := msg.Message{Type: msg.Say, Kind: msg.SayText, Time: time.Unix(0, 0), Payload: p}
			poison(reflect.ValueOf(&m))
			m.Kind = msg.SayText
			if p != nil {
				poison(reflect.ValueOf(p))
			}
			return toMessage(m)
		}})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := tc.convert()
			if _, err := proto.Marshal(out); err != nil {
				t.Fatalf("marshal: %v", err)
			}
			if bad := invalidStrings(out.ProtoReflect(), tc.name); len(bad) > 0 {
				t.Errorf("invalid UTF-8 in %v", bad)
			}
		})
	}
}

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"naïve ✓", "naïve ✓"},
		{latin1, "caf\uFFFD.txt"},
		{"a\xff\xfe\xfdb", "a\uFFFDb"}, // a run of bad bytes is one replacement
		{"cut \xe2\x9c", "cut \uFFFD"}, // a rune cut in half at the end
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := clean(tc.in); got != tc.want {
				t.Errorf("clean(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	valid := []string{"a", "b"}
	if got := cleanAll(valid); &got[0] != &valid[0] {
		t.Error("cleanAll copied a valid slice")
	}
	mixed := []string{"a", latin1}
	if got := cleanAll(mixed); got[1] != "caf\uFFFD.txt" || mixed[1] != latin1 {
		t.Errorf("cleanAll = %q, input now %q", got, mixed)
	}
}

// TestAutoApproveRoundTrip checks that every auto-approve setting survives the webview's
// round trip, the local-network one included: a field the proto lacked would be switched off
// by any change made in the auto-approve bar.
func TestAutoApproveRoundTrip(t *testing.T) {
	in := config.AutoApprove{Enabled: true, ReadFiles: true, ReadFilesOutside: true, EditFiles: true, EditFilesOutside: true,
		SafeCommands: true, AllCommands: true, Browser: true, LocalNetwork: true, MCP: true, Protected: true, MaxRequests: 9,
		YOLO: true, DenyList: []string{"rm -rf"}, AllowList: []string{"npm test"}}
	if out := fromAutoApprove(toAutoApprove(in)); !reflect.DeepEqual(out, in) {
		t.Errorf("round trip:\n got %+v\nwant %+v", out, in)
	}
}

// TestSandboxSettingsRoundTrip: the sandbox settings survive the settings view's round trip
// (README "Security"), the form's masked-path lines are trimmed, and an update without them (a
// client that does not know them) keeps them rather than turning the sandbox back on or
// dropping a masked path.
func TestSandboxSettingsRoundTrip(t *testing.T) {
	old := config.Default()
	old.SandboxOff, old.SandboxNetwork, old.SandboxMaskedPaths = true, true, []string{"~/.secrets", "/srv/keys"}
	if got := fromSettings(toSettings(old), config.Default()); got.SandboxOff != true || got.SandboxNetwork != true ||
		!reflect.DeepEqual(got.SandboxMaskedPaths, old.SandboxMaskedPaths) {
		t.Errorf("round trip: off %v network %v masked %v", got.SandboxOff, got.SandboxNetwork, got.SandboxMaskedPaths)
	}
	in := toSettings(old)
	in.Sandbox = nil
	if got := fromSettings(in, old); !got.SandboxOff || !got.SandboxNetwork || len(got.SandboxMaskedPaths) != 2 {
		t.Errorf("an update without the sandbox settings changed them: %+v", got)
	}
	in.Sandbox = &cairnv1.SandboxSettings{MaskedPaths: []string{" ~/.vault ", "", "  "}}
	if got := fromSettings(in, old); got.SandboxOff || got.SandboxNetwork || !reflect.DeepEqual(got.SandboxMaskedPaths, []string{"~/.vault"}) {
		t.Errorf("the form's values: off %v network %v masked %q", got.SandboxOff, got.SandboxNetwork, got.SandboxMaskedPaths)
	}
}

// TestSandboxOnTheWire: a command's sandbox notes and the task's sandbox state reach clients.
func TestSandboxOnTheWire(t *testing.T) {
	m := toMessage(msg.Message{Type: msg.Ask, Kind: msg.AskCommand, Payload: &msg.Command{Command: "make",
		Sandbox: "the sandbox is off (--no-sandbox)", SandboxDenied: "a write to /etc/hosts; the rerun may write anywhere"}})
	if c := m.GetCommand(); c.GetSandbox() != "the sandbox is off (--no-sandbox)" || c.GetSandboxDenied() == "" {
		t.Errorf("command payload %v", c)
	}
	st := toState(task.State{Sandbox: task.Sandbox{Status: sandbox.Status{Reason: "no user namespaces"}, Network: true}})
	if sb := st.GetSandbox(); sb.GetAvailable() || sb.GetReason() != "no user namespaces" || !sb.GetNetwork() || sb.GetOff() {
		t.Errorf("task state's sandbox %v", sb)
	}
	set := config.Default()
	set.SandboxOff = true
	if sb := toSandboxStatus(sandboxStatus(set, sandbox.Status{Available: true, Mechanism: "m"})); !sb.GetOff() ||
		sb.GetOffBy() != "sandboxDisabled setting" || !sb.GetAvailable() {
		t.Errorf("GetState's sandbox %v", sb)
	}
}
