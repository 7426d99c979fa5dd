//go:build !linux

package lowprio

// lower does nothing where threads have no priority of their own that an
// unprivileged process may lower: the work runs at normal priority.
func lower() bool { return false }
