package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/cairnhq/cairn/core/config"
)

// keyFDEnv names the variable through which a process image tells the next one (after the
// re-exec of shedKeys) which inherited file descriptor holds its keys. It holds only the
// descriptor's number, never a key.
const keyFDEnv = "CAIRN_KEY_FD"

// maxKeyPayload bounds what is read from the key descriptor.
const maxKeyPayload = 1 << 20

// keyEnvNames are the variables the command line takes a key from (README, Configuration).
var keyEnvNames = []string{"CAIRN_API_KEY", "OPENAI_API_KEY"}

// keyFlag is the flag whose value is a key.
const keyFlag = "api-key"

// handedKeys are the keys the previous process image held in its arguments and environment,
// passed over a pipe so that this one never holds them where another process can read them
// (/proc/PID/environ and /proc/PID/cmdline; README, Security).
type handedKeys struct {
	// Flag is the last --api-key value.
	Flag string `json:"flag,omitempty"`
	// Env are the values of keyEnvNames that were set.
	Env map[string]string `json:"env,omitempty"`
}

// handed is set once by Main (receiveKeys) before any command runs, then only read.
var handed handedKeys

// getenv reads a variable, or the value it had before the re-exec removed it.
func getenv(name string) string {
	if v, ok := handed.Env[name]; ok {
		return v
	}
	return os.Getenv(name)
}

// apiKeyFlag is --api-key as given, or as it was given before the re-exec removed it.
func (f *settingsFlags) apiKeyFlag() string {
	if f.apiKey != "" {
		return f.apiKey
	}
	return handed.Flag
}

// receiveKeys reads the keys the previous image left on the descriptor named by keyFDEnv, and
// closes it. Without that variable it does nothing.
func receiveKeys() error {
	v, ok := os.LookupEnv(keyFDEnv)
	if !ok {
		return nil
	}
	if err := os.Unsetenv(keyFDEnv); err != nil {
		return fmt.Errorf("%s: %w", keyFDEnv, err)
	}
	fd, err := strconv.Atoi(v)
	if err != nil || fd <= 2 {
		return fmt.Errorf("%s=%q is not an inherited descriptor", keyFDEnv, v)
	}
	f := os.NewFile(uintptr(fd), "cairn-keys")
	if f == nil {
		return fmt.Errorf("%s=%d is not an open descriptor", keyFDEnv, fd)
	}
	b, rerr := io.ReadAll(io.LimitReader(f, maxKeyPayload))
	if err := errors.Join(rerr, f.Close()); err != nil {
		return fmt.Errorf("reading the keys from descriptor %d: %w", fd, err)
	}
	if err := json.Unmarshal(b, &handed); err != nil {
		return fmt.Errorf("reading the keys from descriptor %d: %w", fd, err)
	}
	return nil
}

// keyPlan is what shedKeys changes: the arguments without the key flags, the environment
// without the secrets, and the keys to hand over.
type keyPlan struct {
	args, env []string
	keys      handedKeys
	// changed reports that args or env held a secret.
	changed bool
}

// planKeys works out, for the command line args (without the program name) and the
// environment env, what the process image that goes on must be started with. Only commands
// that start other processes are concerned: run, resume and eval polyglot (the key flag and variables),
// serve, tool and mcp (key variables only: they take no key).
func planKeys(args, env []string) keyPlan {
	p := keyPlan{args: args, env: env}
	if len(args) == 0 {
		return p
	}
	var fs *flag.FlagSet
	head := 1 // the words before the flags
	switch args[0] {
	case "eval":
		if len(args) > 1 && args[1] == "polyglot" {
			fs, _ = evalFlags(IO{Err: io.Discard})
			head = 2
		}
	case "run":
		fs, _ = runFlags(IO{Err: io.Discard})
	case "resume":
		fs, _ = resumeFlags(IO{Err: io.Discard})
	case "acp":
		fs, _ = acpFlags(IO{Err: io.Discard})
	case "serve", "tool", "mcp":
	default:
		return p
	}
	secrets := config.Secrets{Names: config.DefaultSecretEnv}
	// The user's own secret names (config file) go too; a file that does not load is
	// reported later by the command itself.
	if s, err := config.Load(configPath()); err == nil {
		secrets.AddNames(s.SecretEnv...)
		secrets.AddValues(s.Secrets().Values...)
	}
	if fs != nil {
		for _, kv := range env {
			name, value, _ := strings.Cut(kv, "=")
			if slices.Contains(keyEnvNames, name) {
				if p.keys.Env == nil {
					p.keys.Env = map[string]string{}
				}
				p.keys.Env[name] = value
				secrets.AddValues(value)
			}
		}
		var flags []string
		p.args, flags = withoutFlag(fs, args[head:], keyFlag)
		p.args = append(slices.Clone(args[:head]), p.args...)
		if len(flags) > 0 {
			p.keys.Flag = flags[len(flags)-1]
			secrets.AddValues(flags...)
			p.changed = true
		}
	}
	p.env = secrets.Scrub(env)
	p.changed = p.changed || len(p.env) != len(env)
	return p
}

// withoutFlag returns args without the occurrences of the flag name (and their values) that
// fs would parse as flags, and those values. Arguments after the first one that is not a flag,
// or after "--", are kept as they are: the flag package does not read them as flags either.
// Args that fs cannot parse are returned unchanged: the command reports them and stops.
func withoutFlag(fs *flag.FlagSet, args []string, name string) (kept, values []string) {
	if fs.Parse(args) != nil {
		return args, nil
	}
	i := 0
	for i < len(args) {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || a == "--" {
			break
		}
		n, v, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		width := 1
		if f := fs.Lookup(n); f != nil && !hasValue && !isBoolFlag(f) && i+1 < len(args) {
			width, v = 2, args[i+1]
		}
		if n == name {
			values = append(values, v)
		} else {
			kept = append(kept, args[i:i+width]...)
		}
		i += width
	}
	return append(kept, args[i:]...), values
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
