package server

import (
	"os"

	"github.com/cairnhq/cairn/core/policy"
)

// ManagedPolicyEnv holds the editor's managed policy setting, a policy file's text: the
// extension passes VS Code's `cairn.managedPolicy` (a setting an organisation can set through
// VS Code's policies) to the daemon it starts (docs/settings.md, "Policy files").
const ManagedPolicyEnv = "CAIRN_MANAGED_POLICY"

// DefaultPolicySources are the policy files of this machine: the managed file of the OS and
// the editor's managed setting, and the user's file in the config folder. A task adds its
// workspace roots' files.
func DefaultPolicySources() policy.Sources {
	return policy.Sources{Managed: policy.ManagedPaths(), ManagedJSON: os.Getenv(ManagedPolicyEnv),
		ManagedName: "the editor setting cairn.managedPolicy", User: policy.UserPath()}
}
