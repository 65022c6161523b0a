package cli

// shedKeys does nothing on Windows: there is no exec(2) that replaces a process image under the
// same process, so a key given as --api-key or in the environment stays in this process's
// command line and environment, where the user's other processes can read it (README,
// Security). Use the config file or VS Code's secret storage there.
func shedKeys([]string) error { return nil }
