package main

import (
	"fmt"
	"slices"

	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/docindex"
	"github.com/vaultgraph/vaultgraph/tools"
	dtools "github.com/vaultgraph/vaultgraph/tools/docindex"
)

// documentTools returns the document tools of the memory toolset (spec
// 004): none when the memory toolset is off, or when no embedding provider
// is configured (embedding.provider: none), since every chunk is embedded.
// Files can be read from the vault and from documents.allowed_roots only.
func (a *app) documentTools() ([]tools.Tool, error) {
	if !slices.Contains(a.cfg.Toolsets, config.ToolsetMemory) {
		return nil, nil
	}
	emb := a.search.embedder // shared: the built-in model is loaded once
	if emb == nil {
		a.logger.Info("document tools are off: they need an embedding provider (embedding.provider is none)")
		return nil, nil
	}
	root := a.mirror.Root()
	svc, err := docindex.New(docindex.Config{
		Project:  a.primary.Key,
		Store:    a.store,
		Embedder: emb,
		Roots:    append([]string{root}, a.cfg.Documents.AllowedRoots...),
		Vault:    root,
		Notes:    a.store,
		Logger:   a.logger,
	})
	if err != nil {
		return nil, fmt.Errorf("document index: %w", err)
	}
	return dtools.Tools(dtools.Deps{Index: svc, Logger: a.logger}), nil
}
