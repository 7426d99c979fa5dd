package config

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDocumentRootsAreMadeAbsolute(t *testing.T) {
	wd := isolate(t)
	writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), "documents:\n  allowed_roots: [papers, /srv/docs]\n")
	c, err := load(t)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(wd, "papers"), "/srv/docs"}, c.Documents.AllowedRoots, "relative to the config file's folder")

	t.Setenv("VAULTGRAPH_DOCUMENTS_ALLOWED_ROOTS", "/a,/b/../c")
	c, err = load(t)
	require.NoError(t, err)
	assert.Equal(t, []string{"/a", "/c"}, c.Documents.AllowedRoots)
}
