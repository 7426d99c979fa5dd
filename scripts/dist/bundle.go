package main

import (
	"encoding/json"
	"strings"
)

// Where the project lives: release downloads, the registry name, the image.
const (
	repoURL      = "https://github.com/vaultgraph/vaultgraph"
	registryName = "io.github.vaultgraph/vaultgraph"
	imageRepo    = "ghcr.io/vaultgraph/vaultgraph"
)

// mcpbManifestVersion is the MCPB manifest format the bundles use: 0.2, the
// version the @anthropic-ai/mcpb CLI writes for new bundles (its
// DEFAULT_MANIFEST_VERSION), which the widest range of Claude Desktop
// releases installs. Nothing vaultgraph needs came later (0.3 added icons
// and localization, 0.4 the "uv" server type).
const mcpbManifestVersion = "0.2"

// Manifest is an MCPB bundle's manifest.json, the fields vaultgraph uses.
type Manifest struct {
	ManifestVersion string                `json:"manifest_version"`
	Name            string                `json:"name"`
	DisplayName     string                `json:"display_name"`
	Version         string                `json:"version"`
	Description     string                `json:"description"`
	LongDescription string                `json:"long_description"`
	Author          ManifestAuthor        `json:"author"`
	Repository      ManifestRepository    `json:"repository"`
	License         string                `json:"license"`
	Homepage        string                `json:"homepage"`
	Documentation   string                `json:"documentation"`
	Support         string                `json:"support"`
	Server          ManifestServer        `json:"server"`
	Keywords        []string              `json:"keywords"`
	Compatibility   ManifestCompatibility `json:"compatibility"`
	UserConfig      map[string]UserOption `json:"user_config"`
}

// ManifestAuthor names who publishes the bundle.
type ManifestAuthor struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
}

// ManifestRepository is the source repository.
type ManifestRepository struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// ManifestServer says how the client starts the server.
type ManifestServer struct {
	Type       string    `json:"type"`
	EntryPoint string    `json:"entry_point"`
	MCPConfig  MCPConfig `json:"mcp_config"`
}

// MCPConfig is the command line the client runs; ${__dirname} is the
// bundle's folder once installed, ${user_config.X} the user's answer to X.
type MCPConfig struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// ManifestCompatibility limits the bundle to the platform its binary runs on.
type ManifestCompatibility struct {
	Platforms []string `json:"platforms"`
}

// UserOption is one question the client asks at install time.
type UserOption struct {
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
}

// mcpbPlatform maps GOOS to the platform names of MCPB manifests.
var mcpbPlatform = map[string]string{"darwin": "darwin", "linux": "linux", "windows": "win32"}

// binaryName is the server binary's file name on goos.
func binaryName(goos string) string {
	if goos == "windows" {
		return "vaultgraph.exe"
	}
	return "vaultgraph"
}

// bundleManifest is the manifest of the bundle for goos. version is a
// semantic version without the leading "v".
//
// The one question asked is the vault folder, passed to serve; everything
// else keeps serve's defaults (embedded store, graph and kb toolsets, state
// under the user's state folder), and a config file in the user config
// folder (vaultgraph init) still applies, since the server reads it.
// license is the project's SPDX licence identifier.
func bundleManifest(version, goos, license string) Manifest {
	entry := "server/" + binaryName(goos)
	return Manifest{
		ManifestVersion: mcpbManifestVersion,
		Name:            "vaultgraph",
		DisplayName:     "vaultgraph",
		Version:         version,
		Description:     "A folder of markdown notes (an Obsidian-style vault) as a knowledge graph: notes, links, tags, paths and search.",
		LongDescription: strings.Join([]string{
			"vaultgraph mirrors a vault of markdown notes (YAML frontmatter, #tags, [[wikilinks]]) into a graph",
			"and serves it over MCP: look up a note with its neighbours, find paths and hubs, search by tags or by meaning,",
			"and create, update, move or delete notes and knowledge bases. The notes stay the source of truth:",
			"writes go to the files first. The graph lives in an embedded store; nothing else to install.",
		}, " "),
		Author:        ManifestAuthor{Name: "vaultgraph maintainers", URL: repoURL},
		Repository:    ManifestRepository{Type: "git", URL: repoURL},
		License:       license,
		Homepage:      repoURL,
		Documentation: repoURL + "#readme",
		Support:       repoURL + "/issues",
		Server: ManifestServer{
			Type:       "binary",
			EntryPoint: entry,
			MCPConfig: MCPConfig{
				Command: "${__dirname}/" + entry,
				Args:    []string{"serve", "--vault", "${user_config.vault}"},
				Env:     map[string]string{},
			},
		},
		Keywords:      []string{"markdown", "obsidian", "notes", "knowledge-graph", "wikilinks", "neo4j"},
		Compatibility: ManifestCompatibility{Platforms: []string{mcpbPlatform[goos]}},
		UserConfig: map[string]UserOption{
			"vault": {
				Type:        "directory",
				Title:       "Vault folder",
				Description: "The folder of markdown notes to serve (an Obsidian vault or any folder of .md files).",
				Required:    true,
			},
		},
	}
}

// marshalIndent is json.MarshalIndent with two spaces and a final newline.
func marshalIndent(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
