package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHelpSaysWhatEachCommandDoes(t *testing.T) {
	cases := []struct {
		cmd  string
		want []string
	}{
		{"", []string{"Model Context Protocol", "VAULTGRAPH_NEO4J_URI", "never accepted as flags", "Exit status: 0", "--config", "--vault", "--store", "--log-level", "--log-format", "--read-only", "--toolsets", "--state-dir"}},
		{"serve", []string{"over stdio", "--http", "streamable HTTP", "--watch", "SIGTERM"}},
		{"sync", []string{"brings the store in line with it", "--watch", "queued"}},
		{"shim", []string{"--url", "--token-env", "VAULTGRAPH_TOKEN", "never from a flag", "reconnects", "-32001"}},
		{"call", []string{"TOOL [JSON]", "runs a single tool", "exit status is 1"}},
		{"status", []string{"prints every setting with its source", "[redacted]", "--format"}},
		{"init", []string{"init [VAULT]", "vaultgraph.yaml", "--output", "--force", "refuses to replace"}},
		{"setup", []string{"setup [CLIENT]", "claude-desktop", "claude-code", "cursor", "--dry-run", "vaultgraph-backup", "JSON or JSONC", "does not\nparse is refused", "--client-config"}},
		{"health", []string{"/healthz", "HEALTHCHECK", "exits 0"}},
		{"version", []string{"<version> (<commit>, <go version>)", "VERSION file", "-dev+<commit>", "serverInfo.version"}},
	}
	for _, tc := range cases {
		t.Run("help of "+tc.cmd, func(t *testing.T) {
			isolate(t)
			args := []string{"--help"}
			if tc.cmd != "" {
				args = []string{tc.cmd, "--help"}
			}
			r := runCLI(t, args...)
			assert.Equal(t, exitOK, r.code)
			assert.Empty(t, r.stderr)
			for _, w := range tc.want {
				assert.Contains(t, r.stdout, w)
			}
			assert.True(t, strings.Contains(r.stdout, "Examples:\n"), "every command has an example")
		})
	}
}

func TestNoSecretIsAFlag(t *testing.T) {
	isolate(t)
	root := newRootCommand(streams{})
	var names []string
	for _, c := range append(root.Commands(), root) {
		names = append(names, c.Name())
		for _, bad := range []string{"password", "neo4j-password", "token", "tokens", "http-tokens", "api-key", "embedding-api-key"} {
			assert.Nil(t, c.Flags().Lookup(bad), "%s --%s", c.Name(), bad)
			assert.Nil(t, c.PersistentFlags().Lookup(bad), "%s --%s", c.Name(), bad)
		}
	}
	assert.Contains(t, names, "serve")
}
