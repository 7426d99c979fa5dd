package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/vaultgraph/vaultgraph"
)

func TestVersionFormat(t *testing.T) {
	isolate(t)
	r := runCLI(t, "version")
	assert.Equal(t, exitOK, r.code)
	// A test binary records no module version: the fallback, never "unknown".
	assert.Regexp(t, `^vaultgraph v\d+\.\d+\.\d+\S* \((\S+, )?go[0-9][^ ]*\)\n$`, r.stdout)
	assert.NotContains(t, r.stdout, "unknown")
	assert.Empty(t, r.stderr)

	r = runCLI(t, "--version")
	assert.Equal(t, exitOK, r.code)
	assert.Regexp(t, `^vaultgraph v\d+\.\d+\.\d+\S* \((\S+, )?go[0-9][^ ]*\)\n$`, r.stdout)
}

func TestResolveBuild(t *testing.T) {
	gitBuild := func(v string, modified bool) *debug.BuildInfo {
		m := "false"
		if modified {
			m = "true"
		}
		return &debug.BuildInfo{
			GoVersion: "go1.26.8",
			Main:      debug.Module{Path: "github.com/vaultgraph/vaultgraph", Version: v},
			Settings: []debug.BuildSetting{
				{Key: "vcs", Value: "git"},
				{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
				{Key: "vcs.modified", Value: m},
			},
		}
	}
	dev := "v" + vaultgraph.Version()
	if vaultgraph.IsRelease() {
		t.Skip("the cases below are written for a tree between releases (VERSION X.Y.Z-dev)")
	}
	cases := []struct {
		name             string
		ldVersion, ldCom string
		bi               *debug.BuildInfo
		want             string
	}{
		{"go build of a clean tree: VERSION and the commit", "", "", gitBuild("v0.1.1-0.20261125142300-0123456789ab", false),
			"vaultgraph " + dev + "+0123456789ab (0123456789ab, go1.26.8)"},
		{"go build with local changes", "", "", gitBuild("v0.1.0+dirty", true),
			"vaultgraph " + dev + "+0123456789ab.dirty (0123456789ab-dirty, go1.26.8)"},
		{"go install module@tag records no VCS settings: VERSION alone", "", "",
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.2.0"}},
			"vaultgraph " + dev + " (go1.26.8)"},
		{"go install module@commit: the commit from the pseudo-version", "", "",
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.2.1-0.20261201000000-abcdefabcdef"}},
			"vaultgraph " + dev + "+abcdefabcdef (abcdefabcdef, go1.26.8)"},
		{"no git metadata", "", "",
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"vaultgraph " + dev + " (go1.26.8)"},
		{"link-time values win", "v1.2.3", "abc1234", gitBuild("v0.1.0", false),
			"vaultgraph v1.2.3 (abc1234, go1.26.8)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, resolveBuild(tc.ldVersion, tc.ldCom, tc.bi).String())
		})
	}
	t.Run("no build information at all", func(t *testing.T) {
		b := resolveBuild("", "", nil)
		assert.Equal(t, dev, b.Version)
		assert.Empty(t, b.Commit)
		assert.NotEmpty(t, b.Go)
	})
}

func TestVersionFromLinkerFlags(t *testing.T) {
	oldVersion, oldCommit := version, commit
	t.Cleanup(func() { version, commit = oldVersion, oldCommit })
	version, commit = "v1.2.3", "abc1234"
	assert.Equal(t, "vaultgraph v1.2.3 (abc1234, "+currentBuild().Go+")", versionString())
	assert.Equal(t, "v1.2.3", versionNumber())
}

func TestVCSRevision(t *testing.T) {
	assert.Equal(t, "0123456789ab-dirty", vcsRevision([]debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef"},
		{Key: "vcs.modified", Value: "true"},
	}))
	assert.Equal(t, "abc", vcsRevision([]debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}))
	assert.Empty(t, vcsRevision(nil))
}
