//go:build !linux

package vault

// renameNoReplace is not available here: moveNoClobber links and unlinks.
func renameNoReplace(src, dst string) (ok bool, err error) { return false, nil }
