package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// writeModuleProxy writes the module at HEAD as version into a file-based
// Go module proxy rooted at dir (the layout GOPROXY=file://dir reads: list,
// .info, .mod, .zip), made from the commit exactly as the public proxy would
// make it from the tag. It lets a release's
//
//	go install github.com/vaultgraph/vaultgraph/cmd/vaultgraph@vX.Y.Z
//
// be tried before the tag is published (GOPROXY=file://dir,https://proxy.golang.org
// GONOSUMDB=github.com/vaultgraph/vaultgraph).
func writeModuleProxy(repo, dir, version string, at time.Time) (modPath string, err error) {
	gomod, err := git(repo, "show", "HEAD:go.mod")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(gomod, "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			modPath = strings.Trim(strings.TrimSpace(p), `"`)
			break
		}
	}
	if modPath == "" {
		return "", fmt.Errorf("go.mod at HEAD names no module")
	}
	escaped, err := module.EscapePath(modPath)
	if err != nil {
		return "", err
	}
	vdir := filepath.Join(dir, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return "", err
	}
	f, err := os.Create(filepath.Join(vdir, version+".zip"))
	if err != nil {
		return "", err
	}
	if err := zip.CreateFromVCS(f, module.Version{Path: modPath, Version: version}, repo, "HEAD", ""); err != nil {
		_ = f.Close()
		return "", fmt.Errorf("module zip: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, at.UTC()})
	if err != nil {
		return "", err
	}
	for name, data := range map[string][]byte{
		version + ".mod":  []byte(gomod),
		version + ".info": info,
		"list":            []byte(version + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(vdir, name), data, 0o644); err != nil {
			return "", err
		}
	}
	return modPath, nil
}
