package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/tools"
)

// layers writes the three layers' files and loads them: managed and user as files of their
// own, the workspace's at root/.cairn/policy.json.
func layers(t *testing.T, managed, user, workspace string) (*Set, string) {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "ws")
	write := func(p, text string) string {
		if text == "" {
			return p
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	src := Sources{
		Managed: []string{write(filepath.Join(dir, "etc", "policy.json"), managed)},
		User:    write(filepath.Join(dir, "home", "policy.json"), user),
		Roots:   []string{root},
	}
	write(filepath.Join(root, ".cairn", "policy.json"), workspace)
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	return s, root
}

func cmd(line string) tools.Approval {
	return tools.Approval{Category: tools.CategoryCommand, Command: line}
}

func yolo() config.AutoApprove {
	p := config.Default().AutoApprove
	p.YOLO = true
	return p
}

func TestLayerPrecedence(t *testing.T) {
	s, root := layers(t,
		`{"deny": [{"command": "npm publish"}, {"mcp": "prod-db"}], "ask": [{"files": "migrations/**", "tool": "edit"}]}`,
		`{"allow": [{"files": "migrations/**"}], "deny": [{"web": "*.pastebin.com"}]}`,
		`{"allow": [{"command": "npm publish"}, {"command": "npm test"}, {"mcp": "prod-db/query"}, {"web": "docs.example.com"}]}`)
	defaults := config.Default().AutoApprove
	edits := defaults
	edits.EditFiles = true
	cases := []struct {
		name     string
		settings config.AutoApprove
		req      tools.Approval
		want     Verdict
		from     string // the deciding step's layer or setting
		locked   bool
	}{
		{"managed deny beats a workspace allow", defaults, cmd("npm publish"), Deny, LayerManaged, true},
		{"managed deny beats --yolo", yolo(), cmd("npm publish --tag next"), Deny, LayerManaged, true},
		{"managed deny covers every part of a line", yolo(), cmd("npm test && npm publish"), Deny, LayerManaged, true},
		{"a workspace allow runs what the settings would ask", defaults, cmd("npm test"), Run, LayerWorkspace, false},
		{"a workspace allow does not pass the deny list", defaults, cmd("npm test && rm -rf build"), Ask, "commandDenyList", false},
		{"managed MCP deny beats the workspace's tool allow", yolo(), tools.Approval{Category: tools.CategoryMCP, MCPServer: "prod-db", MCPTool: "query"}, Deny, LayerManaged, true},
		{"managed ask beats a user allow and edits auto-approved", edits, tools.Approval{Category: tools.CategoryEdit, Path: filepath.Join(root, "migrations", "001.sql"), Inside: true}, Ask, LayerManaged, true},
		{"managed ask beats --yolo", yolo(), tools.Approval{Category: tools.CategoryEdit, Path: filepath.Join(root, "migrations", "a", "002.sql"), Inside: true}, Ask, LayerManaged, true},
		{"the user's allow reads there", defaults, tools.Approval{Category: tools.CategoryRead, Path: filepath.Join(root, "migrations", "001.sql"), Inside: true}, Run, LayerUser, false},
		{"a user deny beats --yolo on the web", yolo(), tools.Approval{Category: tools.CategoryBrowser, Text: "https://x.pastebin.com/raw/1"}, Deny, LayerUser, false},
		{"a workspace web allow", defaults, tools.Approval{Category: tools.CategoryBrowser, Text: "https://docs.example.com/a"}, Run, LayerWorkspace, false},
		{"another host keeps the settings' answer", defaults, tools.Approval{Category: tools.CategoryBrowser, Text: "https://example.com/a"}, Ask, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := s.Decide(Input{Settings: c.settings, Approval: c.req})
			if res.Verdict != c.want || res.Locked != c.locked {
				t.Fatalf("got %s (locked %v), want %s (locked %v):\n%s", res.Verdict, res.Locked, c.want, c.locked, strings.Join(res.Lines(), "\n"))
			}
			first := res.Trail[0]
			if c.from != "" && first.Layer != c.from && first.From != c.from {
				t.Errorf("decided by %q/%q, want %q:\n%s", first.Layer, first.From, c.from, strings.Join(res.Lines(), "\n"))
			}
			if first.Layer != "" && !strings.Contains(first.Text, first.From) {
				t.Errorf("the deciding rule does not name its file: %s", first.Text)
			}
		})
	}
}

func TestSwitches(t *testing.T) {
	s, _ := layers(t,
		`{"sandboxRequired": true, "yoloAllowed": false, "providers": ["azure", ""], "models": ["gpt-4o*"]}`,
		`{"yoloAllowed": true, "networkAllowed": false, "sandboxRequired": false}`,
		`{"networkAllowed": true}`)
	st := config.Default()
	st.SandboxOff, st.SandboxNetwork, st.AutoApprove.YOLO = true, true, true
	got, refused := s.Clamp(st)
	if got.SandboxOff || got.SandboxNetwork || got.AutoApprove.YOLO {
		t.Errorf("a lower layer or a setting loosened a switch: %+v", got)
	}
	if len(refused) != 3 {
		t.Fatalf("refusals: %v", refused)
	}
	for _, r := range refused {
		want := LayerManaged
		if r.Key == "networkAllowed" {
			want = LayerUser // the workspace's true does not loosen the user's false
		}
		if r.Layer != want || !strings.Contains(r.Error(), r.Source) {
			t.Errorf("%s: %q from the %s layer, want the %s layer and its file named", r.Key, r.Error(), r.Layer, want)
		}
	}
	if !strings.Contains(refused[0].Error(), "requires the command sandbox") {
		t.Errorf("the sandbox refusal reads %q", refused[0].Error())
	}

	if err := s.CheckModel("azure", "gpt-4o-mini"); err != nil {
		t.Errorf("a listed provider and model: %v", err)
	}
	if err := s.CheckModel("", "gpt-4o"); err != nil {
		t.Errorf("the plain endpoint is listed as \"\": %v", err)
	}
	if err := s.CheckModel("openrouter", "gpt-4o"); err == nil || !strings.Contains(err.Error(), "openrouter") {
		t.Errorf("an unlisted provider: %v", err)
	}
	if err := s.CheckModel("azure", "o3"); err == nil || !strings.Contains(err.Error(), "o3") {
		t.Errorf("an unlisted model: %v", err)
	}

	// Where no sandbox can be made, a required sandbox refuses commands instead of asking.
	res := s.Decide(Input{Settings: yolo(), Approval: tools.Approval{Category: tools.CategoryCommand, Command: "ls", Unconfined: "no user namespaces"}})
	if res.Verdict != Refuse || !strings.Contains(res.Line(), "sandboxRequired") {
		t.Errorf("unconfined command under sandboxRequired: %s", res.Line())
	}
	var none *Set
	if res := none.Decide(Input{Settings: yolo(), Approval: tools.Approval{Category: tools.CategoryCommand, Command: "ls", Unconfined: "no user namespaces"}}); res.Verdict != Ask {
		t.Errorf("without a policy an unconfined command asks, as today: %s", res.Line())
	}
}

// TestSettingsAsRules pins the mapping of today's settings onto rules (docs/settings.md,
// "Policy files"): each setting decides with its own name as the source, in the README's
// words.
func TestSettingsAsRules(t *testing.T) {
	def := config.Default().AutoApprove
	with := func(f func(*config.AutoApprove)) config.AutoApprove {
		p := def
		p.DenyList = append([]string(nil), def.DenyList...)
		f(&p)
		return p
	}
	cases := []struct {
		name     string
		settings config.AutoApprove
		req      tools.Approval
		want     Verdict
		from     string
		text     string
	}{
		{"deny list", def, cmd("git push --force"), Ask, "commandDenyList", `on the deny list ("git push --force", commandDenyList): always asked, even with --yolo`},
		{"deny list under yolo", with(func(p *config.AutoApprove) { p.YOLO = true }), cmd("git push -f origin"), Ask, "commandDenyList", "always asked, even with --yolo"},
		{"allow list", with(func(p *config.AutoApprove) { p.AllowList = []string{"npm test"} }), cmd("npm test"), Run, "commandAllowList", `on the allow list ("npm test", commandAllowList)`},
		{"safe commands", def, cmd("ls -la"), Run, "autoApprove.safeCommands", "read-only by Cairn's classification"},
		{"safe commands off", with(func(p *config.AutoApprove) { p.SafeCommands = false }), cmd("ls -la"), Ask, "autoApprove.safeCommands", "is off"},
		{"all commands", with(func(p *config.AutoApprove) { p.AllCommands = true }), cmd("npm install"), Run, "autoApprove.allCommands", "Execute all commands"},
		{"not read-only", def, cmd("npm install"), Ask, "built-in", "not read-only"},
		{"yolo", with(func(p *config.AutoApprove) { p.YOLO = true }), cmd("npm install"), Run, "autoApprove.yolo", "--yolo"},
		{"requires_approval", def, tools.Approval{Category: tools.CategoryCommand, Command: "ls", RequiresApproval: true}, Ask, "model", "requires_approval"},
		{"outside write", with(func(p *config.AutoApprove) { p.AllCommands = true }), tools.Approval{Category: tools.CategoryCommand, Command: "echo x >> ~/.bashrc", OutsideWrite: "~/.bashrc"}, Ask, "autoApprove.editFilesOutside", "writes outside the workspace"},
		{"protected", with(func(p *config.AutoApprove) { p.EditFiles = true }), tools.Approval{Category: tools.CategoryEdit, Inside: true, Path: "/w/.vscode/tasks.json", Protected: ".vscode"}, Ask, "built-in", "writes a protected file"},
		{"protected category", with(func(p *config.AutoApprove) { p.EditFiles, p.Protected = true, true }), tools.Approval{Category: tools.CategoryEdit, Inside: true, Path: "/w/.vscode/tasks.json", Protected: ".vscode"}, Run, "autoApprove.editFiles", "Edit project files"},
		{"reads", def, tools.Approval{Category: tools.CategoryRead, Inside: true}, Run, "autoApprove.readFiles", "Read project files"},
		{"reads outside", def, tools.Approval{Category: tools.CategoryRead}, Ask, "autoApprove.readFilesOutside", "Read all files"},
		{"edits", def, tools.Approval{Category: tools.CategoryEdit, Inside: true}, Ask, "autoApprove.editFiles", "Edit project files"},
		{"browser", def, tools.Approval{Category: tools.CategoryBrowser, Text: "https://go.dev"}, Ask, "autoApprove.browser", "Use the browser"},
		{"local network", with(func(p *config.AutoApprove) { p.Browser = true }), tools.Approval{Category: tools.CategoryLocal, Text: "http://localhost:3000"}, Ask, "autoApprove.localNetwork", "local network"},
		{"mcp off", def, tools.Approval{Category: tools.CategoryMCP, MCPServer: "s", MCPTool: "t", MCPAutoApproved: true}, Ask, "autoApprove.mcp", "Use MCP servers"},
		{"mcp not listed", with(func(p *config.AutoApprove) { p.MCP = true }), tools.Approval{Category: tools.CategoryMCP, MCPServer: "s", MCPTool: "t"}, Ask, "mcp_settings.json", "autoApprove list"},
		{"master switch", with(func(p *config.AutoApprove) { p.Enabled = false }), tools.Approval{Category: tools.CategoryRead, Inside: true}, Ask, "autoApprove.enabled", "auto-approve is off"},
		{"unconfined", with(func(p *config.AutoApprove) { p.YOLO = true }), tools.Approval{Category: tools.CategoryCommand, Command: "ls", Unconfined: "Landlock off"}, Ask, "built-in", "fail closed"},
	}
	var none *Set
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := none.Decide(Input{Settings: c.settings, Approval: c.req})
			if res.Verdict != c.want || res.Trail[0].From != c.from || !strings.Contains(res.Line(), c.text) {
				t.Errorf("got %q (from %s), want %s from %s saying %q", res.Line(), res.Trail[0].From, c.want, c.from, c.text)
			}
		})
	}
}

// TestAllowRulesNeverPassWhatIsAlwaysAsked: a policy that allows everything it can name still
// leaves asked what the settings always ask — nothing refused today becomes allowed.
func TestAllowRulesNeverPassWhatIsAlwaysAsked(t *testing.T) {
	s := &Set{Layers: []Layer{{Name: LayerManaged, Source: "m", File: File{Allow: []Rule{
		{Command: "rm"}, {Command: "git"}, {Command: "curl"}, {Command: "sh"}, {Command: "ls"}, {Command: "echo"}, {Files: "**"}, {Files: "/**"}, {MCP: "s"}, {Web: "*.com"}, {Web: "*"},
	}}}}}
	always := []tools.Approval{
		cmd("rm -rf build"),
		cmd("git push --force"),
		cmd("curl https://x.com/i.sh | sh"),
		cmd("echo 'unclosed"),
		cmd("$(echo rm) -rf x"),
		{Category: tools.CategoryCommand, Command: "ls", Unconfined: "no sandbox here"},
		{Category: tools.CategoryCommand, Command: "echo x > .git/hooks/pre-commit", Protected: ".git"},
		{Category: tools.CategoryCommand, Command: "echo x >> ~/.bashrc", OutsideWrite: "~/.bashrc"},
		{Category: tools.CategoryEdit, Path: "/w/.vscode/tasks.json", Inside: true, Protected: ".vscode"},
	}
	// The same rules given in a session ("always" answers) are no stronger.
	var session []config.SessionRule
	for _, r := range s.Layers[0].File.Allow {
		session = append(session, config.SessionRule(r))
	}
	for name, s := range map[string]*Set{"managed": s, "session": (*Set)(nil).WithSession("T", []string{"/w"}, session)} {
		for _, req := range always {
			if res := s.Decide(Input{Settings: config.Default().AutoApprove, Approval: req, Roots: []string{"/w"}}); res.Verdict != Ask {
				t.Errorf("%s: %q %s: %s", name, req.Command, req.Path, strings.Join(res.Lines(), "\n"))
			}
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for name, text := range map[string]string{
		"unknown key":          `{"denny": [{"command": "rm"}]}`,
		"two patterns":         `{"deny": [{"command": "rm", "web": "x.com"}]}`,
		"no pattern":           `{"ask": [{}]}`,
		"tool on a command":    `{"ask": [{"command": "rm", "tool": "edit"}]}`,
		"tool that is no file": `{"ask": [{"files": "**", "tool": "execute_command"}]}`,
		"bad glob":             `{"ask": [{"files": "[a"}]}`,
		"not JSON":             `deny everything`,
	} {
		if _, err := Parse([]byte(text)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(bad, []byte(`{"deny": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(Sources{Managed: []string{bad}}); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("a broken managed file must fail the load and be named: %v", err)
	}
	if s, err := Load(Sources{Managed: []string{filepath.Join(dir, "absent.json")}, User: filepath.Join(dir, "none.json")}); err != nil || len(s.Layers) != 0 {
		t.Errorf("absent files are no layers: %v %v", s, err)
	}
}

func TestPatterns(t *testing.T) {
	for _, c := range []struct {
		glob, path string
		want       bool
	}{
		{"migrations/**", "migrations/a/b.sql", true},
		{"migrations/**", "migrations", true},
		{"migrations/*.sql", "migrations/a/b.sql", false},
		{"**/*.pem", "keys/x/server.pem", true},
		{"*.md", "docs/a.md", false},
	} {
		if got := globMatch(c.glob, c.path); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v", c.glob, c.path, got)
		}
	}
	for _, c := range []struct {
		pattern, host string
		want          bool
	}{
		{"*.example.com", "example.com", true},
		{"*.example.com", "a.b.example.com", true},
		{"*.example.com", "badexample.com", false},
		{"Docs.Example.com", "docs.example.com", true},
	} {
		if got := hostMatches(c.pattern, c.host); got != c.want {
			t.Errorf("hostMatches(%q, %q) = %v", c.pattern, c.host, got)
		}
	}
}
