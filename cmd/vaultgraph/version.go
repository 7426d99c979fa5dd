package main

import (
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vaultgraph/vaultgraph"
)

// Set at build time by make build and make dist (the version scripts/dist
// computes, the commit from git), or by packagers:
// go build -ldflags "-X main.version=v1.2.3 -X main.commit=abc1234".
// Left empty (go build, go install), the version comes from the VERSION file
// embedded in the binary and the commit from what the Go toolchain recorded
// (debug.ReadBuildInfo): v0.2.0 for a release, v0.2.0-dev+0123456789ab
// between releases, ".dirty" for uncommitted changes.
var (
	version = ""
	commit  = ""
)

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
// (vX.Y.Z-[pre.]yyyymmddhhmmss-abcdefabcdef, maybe "+dirty"), as after
// "go install ...@<commit>", which records no VCS settings.
var pseudoRevision = regexp.MustCompile(`[-.]\d{14}-([0-9a-f]{12})(\+dirty)?$`)

// resolveBuild decides version and commit: link-time values first; else the
// tree's VERSION (vaultgraph.BuildVersion) with the commit the toolchain
// recorded (VCS revision, or the commit a pseudo-version names). bi may be
// nil.
func resolveBuild(ldVersion, ldCommit string, bi *debug.BuildInfo) buildVersion {
	b := buildVersion{Version: ldVersion, Commit: ldCommit, Go: runtime.Version()}
	if bi != nil {
		if b.Commit == "" {
			b.Commit = vcsRevision(bi.Settings)
		}
		if b.Commit == "" {
			if m := pseudoRevision.FindStringSubmatch(bi.Main.Version); m != nil {
				b.Commit = m[1]
			}
		}
		if bi.GoVersion != "" {
			b.Go = bi.GoVersion
		}
	}
	if b.Version == "" {
		rev, dirty := strings.CutSuffix(b.Commit, "-dirty")
		b.Version = vaultgraph.BuildVersion(rev, dirty)
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
		Long: `version prints "vaultgraph <version> (<commit>, <go version>)". The version
comes from the VERSION file of the source tree the binary was built from:
v0.2.0 for a release, v0.2.0-dev+<commit> between releases (0.2.0 then names
the next release), ".dirty" in the build metadata when the tree had
uncommitted changes. The commit is what make build, make dist or the Go
toolchain recorded, left out when none did. The MCP handshake
(serverInfo.version) and the first log line of serve, sync and call carry the
same version.`,
		Example: "  vaultgraph version",
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(s.out, versionString())
			return err
		},
	}
}
