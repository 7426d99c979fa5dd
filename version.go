// Package vaultgraph holds what belongs to the source tree as a whole: its
// version, read from the VERSION file at the repository root and embedded in
// every build (go build, go install, make build, make dist), so a binary
// reports the version of the tree it came from whether or not git tags
// exist (docs/RELEASING.md).
package vaultgraph

import (
	_ "embed"
	"strings"
)

//go:embed VERSION
var versionFile string

// Version is the tree's version without the "v": "X.Y.Z" at a release
// commit, "X.Y.Z-dev" between releases (X.Y.Z then names the next release).
func Version() string { return strings.TrimSpace(versionFile) }

// IsRelease reports whether the tree is a release (VERSION has no "-dev").
func IsRelease() bool { return !strings.HasSuffix(Version(), "-dev") }

// BuildVersion is the semantic version a build of the tree reports, with
// the "v": "vX.Y.Z" for a release built from a clean tree; between releases
// "vX.Y.Z-dev+<commit>" (commit: 12 hex digits, "" when the build recorded
// none, giving "vX.Y.Z-dev"); ".dirty" is added to the build metadata when
// the tree had uncommitted changes ("vX.Y.Z+<commit>.dirty" for a release).
func BuildVersion(commit string, dirty bool) string {
	v := "v" + Version()
	var meta []string
	if commit != "" && (!IsRelease() || dirty) {
		meta = append(meta, commit)
	}
	if dirty {
		meta = append(meta, "dirty")
	}
	if len(meta) > 0 {
		v += "+" + strings.Join(meta, ".")
	}
	return v
}
