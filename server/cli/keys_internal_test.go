package cli

import (
	"slices"
	"testing"
)

// TestPlanKeysRemovesOnlyKeyFlags: the key flag goes in every spelling, other flags and the
// task text stay in their order, and "--api-key" inside the task text is text.
func TestPlanKeysRemovesOnlyKeyFlags(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	env := []string{"HOME=/h", "CAIRN_API_KEY=sk-env-key-0001", "ANTHROPIC_API_KEY=x", "COPY=sk-flag-key-0002", "PATH=/bin"}
	cases := []struct {
		args, want []string
		flag       string
	}{
		{[]string{"run", "--api-key", "sk-flag-key-0002", "--yolo", "-C", "d", "do it"}, []string{"run", "--yolo", "-C", "d", "do it"}, "sk-flag-key-0002"},
		{[]string{"run", "-api-key=sk-flag-key-0002", "--json", "x", "--api-key", "y"}, []string{"run", "--json", "x", "--api-key", "y"}, "sk-flag-key-0002"},
		{[]string{"resume", "--api-key=a1234567", "--api-key", "sk-flag-key-0002", "ID"}, []string{"resume", "ID"}, "sk-flag-key-0002"},
		{[]string{"run", "--model", "--api-key", "task"}, []string{"run", "--model", "--api-key", "task"}, ""},
		{[]string{"run", "--", "--api-key", "k"}, []string{"run", "--", "--api-key", "k"}, ""},
		{[]string{"eval", "polyglot", "--dataset", "d", "--api-key", "sk-flag-key-0002", "--agentic"},
			[]string{"eval", "polyglot", "--dataset", "d", "--agentic"}, "sk-flag-key-0002"},
	}
	for _, c := range cases {
		p := planKeys(c.args, env)
		if !slices.Equal(p.args, c.want) || p.keys.Flag != c.flag {
			t.Errorf("planKeys(%q) = %q, flag %q; want %q, flag %q", c.args, p.args, p.keys.Flag, c.want, c.flag)
		}
		if p.keys.Env["CAIRN_API_KEY"] != "sk-env-key-0001" || !p.changed {
			t.Errorf("planKeys(%q) hands over %v (changed %v)", c.args, p.keys, p.changed)
		}
		wantEnv := []string{"HOME=/h", "PATH=/bin"}
		if c.flag == "" {
			wantEnv = []string{"HOME=/h", "COPY=sk-flag-key-0002", "PATH=/bin"}
		}
		if !slices.Equal(p.env, wantEnv) {
			t.Errorf("planKeys(%q) env = %q, want %q", c.args, p.env, wantEnv)
		}
	}
	if p := planKeys([]string{"history"}, env); p.changed {
		t.Errorf("history restarts itself: %+v", p)
	}
	if p := planKeys([]string{"serve", "--data-dir", "d"}, env); !p.changed || p.keys.Env != nil ||
		!slices.Equal(p.env, []string{"HOME=/h", "COPY=sk-flag-key-0002", "PATH=/bin"}) {
		t.Errorf("serve plan = %+v", p)
	}
}
