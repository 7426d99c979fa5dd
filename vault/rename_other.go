//go:build !linux

package vault

// renameNoReplace is not available here: the caller falls back to link +
// remove, which a crash can interrupt between the two steps.
func renameNoReplace(src, dst string) (ok bool, err error) { return false, nil }
