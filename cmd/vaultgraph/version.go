package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Set at build time: go build -ldflags "-X main.version=v1.2.3 -X main.commit=abc1234".
// When empty, the module version and VCS revision recorded by the Go
// toolchain (debug.ReadBuildInfo) are used.
var (
	version = ""
	commit  = ""
)

// versionString is "vaultgraph <version> (<commit>, <go version>)".
func versionString() string {
	v, c, goVersion := buildInfo()
	return fmt.Sprintf("vaultgraph %s (%s, %s)", v, c, goVersion)
}

// versionNumber is the version alone, as the MCP server reports it.
func versionNumber() string {
	v, _, _ := buildInfo()
	return v
}

// buildInfo returns the version, commit and Go version of this build.
func buildInfo() (v, c, goVersion string) {
	v, c, goVersion = version, commit, runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version // go install module@version
		}
		if c == "" {
			c = vcsRevision(bi.Settings)
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
	}
	if v == "" {
		v = "dev"
	}
	if c == "" {
		c = "unknown"
	}
	return v, c, goVersion
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
		Long: `version prints "vaultgraph <version> (<commit>, <go version>)". Release builds
set the version and commit at link time; other builds report what the Go
toolchain recorded, or "dev" and "unknown".`,
		Example: "  vaultgraph version",
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(s.out, versionString())
			return err
		},
	}
}
