package main

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVersionFormat(t *testing.T) {
	isolate(t)
	r := runCLI(t, "version")
	assert.Equal(t, exitOK, r.code)
	assert.Regexp(t, `^vaultgraph \S+ \(\S+, go[0-9][^ ]*\)\n$`, r.stdout)
	assert.Empty(t, r.stderr)

	r = runCLI(t, "--version")
	assert.Equal(t, exitOK, r.code)
	assert.Regexp(t, `^vaultgraph \S+ \(\S+, go[0-9][^ ]*\)\n$`, r.stdout)
}

func TestVersionFromLinkerFlags(t *testing.T) {
	oldVersion, oldCommit := version, commit
	t.Cleanup(func() { version, commit = oldVersion, oldCommit })
	version, commit = "v1.2.3", "abc1234"
	assert.Equal(t, "vaultgraph v1.2.3 (abc1234, "+goVersion()+")", versionString())
}

func goVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.GoVersion != "" {
		return bi.GoVersion
	}
	return runtime.Version()
}

func TestVCSRevision(t *testing.T) {
	assert.Equal(t, "0123456789ab-dirty", vcsRevision([]debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef"},
		{Key: "vcs.modified", Value: "true"},
	}))
	assert.Equal(t, "abc", vcsRevision([]debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}))
	assert.Empty(t, vcsRevision(nil))
}
