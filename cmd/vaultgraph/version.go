package main

import (
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Set at build time only by packagers who build outside a git checkout:
// go build -ldflags "-X main.version=v1.2.3 -X main.commit=abc1234".
// Left empty (make build, make dist, go build, go install), the version and
// commit are what the Go toolchain recorded in the binary (debug.ReadBuildInfo):
// the git tag (v0.1.0), a pseudo-version after it
// (v0.1.1-0.20261125142300-0123456789ab), "+dirty" for uncommitted changes.
var (
	version = ""
	commit  = ""
)

// devVersion is reported when nothing recorded a version: a build from a
// source tree without git metadata, or a test binary. It is a valid semantic
// version that sorts before every release.
const devVersion = "v0.0.0-dev"

// buildVersion is what this binary says about itself.
type buildVersion struct {
	Version string // semantic version with a leading "v"
	Commit  string // short commit, "" when the build recorded none
	Go      string // Go toolchain, e.g. go1.26.8
}

// String is "vaultgraph <version> (<commit>, <go version>)", or without the
// commit when none is known.
func (b buildVersion) String() string {
	if b.Commit == "" {
		return fmt.Sprintf("vaultgraph %s (%s)", b.Version, b.Go)
	}
	return fmt.Sprintf("vaultgraph %s (%s, %s)", b.Version, b.Commit, b.Go)
}

// currentBuild describes this binary.
func currentBuild() buildVersion {
	bi, _ := debug.ReadBuildInfo()
	return resolveBuild(version, commit, bi)
}

// versionString is the line "vaultgraph version" prints.
func versionString() string { return currentBuild().String() }

// versionNumber is the version alone, as the MCP server reports it
// (serverInfo.version) and the logs carry it.
func versionNumber() string { return currentBuild().Version }

// pseudoRevision finds the commit in a Go pseudo-version
// (vX.Y.Z-[pre.]yyyymmddhhmmss-abcdefabcdef, maybe "+dirty").
var pseudoRevision = regexp.MustCompile(`[-.]\d{14}-([0-9a-f]{12})(\+dirty)?$`)

// resolveBuild decides version and commit: link-time values first, then
// what the toolchain recorded (module version; VCS revision, or the commit a
// pseudo-version names, as after "go install ...@<commit>"), then devVersion.
// bi may be nil.
func resolveBuild(ldVersion, ldCommit string, bi *debug.BuildInfo) buildVersion {
	b := buildVersion{Version: ldVersion, Commit: ldCommit, Go: runtime.Version()}
	if bi != nil {
		if b.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version
		}
		if b.Commit == "" {
			b.Commit = vcsRevision(bi.Settings)
		}
		if b.Commit == "" {
			if m := pseudoRevision.FindStringSubmatch(b.Version); m != nil {
				b.Commit = m[1]
			}
		}
		if bi.GoVersion != "" {
			b.Go = bi.GoVersion
		}
	}
	if b.Version == "" {
		b.Version = devVersion
	}
	return b
}

// vcsRevision returns the short commit recorded by the toolchain, with
// "-dirty" when the tree had local changes; "" if none was recorded.
func vcsRevision(settings []debug.BuildSetting) string {
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}

func newVersionCommand(s streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and Go version",
		Long: `version prints "vaultgraph <version> (<commit>, <go version>)". The version is
the semantic version the Go toolchain recorded from the git tags: v0.1.0 for a
build of the tag v0.1.0, a pseudo-version such as
v0.1.1-0.20261125142300-0123456789ab for a later commit, "+dirty" when the
tree had uncommitted changes; "go install ...@v0.1.0" reports v0.1.0. A build
without git metadata reports ` + devVersion + `. The MCP handshake (serverInfo.version)
and the first log line of serve, sync and call carry the same version.`,
		Example: "  vaultgraph version",
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(s.out, versionString())
			return err
		},
	}
}
