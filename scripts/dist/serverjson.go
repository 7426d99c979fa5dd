package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// serverSchema is the MCP registry's server.json schema version the file
// declares (the registry's current one in github.com/modelcontextprotocol/registry v1.8.9).
const serverSchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// serverJSON is the MCP registry entry (server.json), the fields vaultgraph
// uses. Decoding refuses any other field, so nothing in the checked-in file
// is silently dropped when dist rewrites it.
type serverJSON struct {
	Schema      string           `json:"$schema"`
	Name        string           `json:"name"`
	Title       string           `json:"title"`
	Description string           `json:"description"`
	Repository  serverRepository `json:"repository"`
	WebsiteURL  string           `json:"websiteUrl"`
	Version     string           `json:"version"`
	Packages    []serverPackage  `json:"packages"`
}

type serverRepository struct {
	URL    string `json:"url"`
	Source string `json:"source"`
}

type serverPackage struct {
	RegistryType     string           `json:"registryType"`
	Identifier       string           `json:"identifier"`
	FileSHA256       string           `json:"fileSha256,omitempty"`
	RuntimeHint      string           `json:"runtimeHint,omitempty"`
	RuntimeArguments []serverArgument `json:"runtimeArguments,omitempty"`
	Transport        serverTransport  `json:"transport"`
}

type serverArgument struct {
	Type      string                 `json:"type"`
	Name      string                 `json:"name,omitempty"`
	Value     string                 `json:"value,omitempty"`
	Variables map[string]serverInput `json:"variables,omitempty"`
}

type serverInput struct {
	Description string `json:"description"`
	Format      string `json:"format,omitempty"`
	IsRequired  bool   `json:"isRequired,omitempty"`
}

type serverTransport struct {
	Type string `json:"type"`
}

// readServerJSON decodes the checked-in server.json strictly.
func readServerJSON(path string) (serverJSON, error) {
	var s serverJSON
	data, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// bundleFile is one MCPB bundle of a release with its SHA-256 ("" when not
// built, as in the checked-in server.json).
type bundleFile struct {
	Name   string
	SHA256 string
}

// releaseServerJSON is the registry entry for version (without "v"): the
// checked-in file's description, then one MCPB package per bundle, at the
// release's download URL, and the container image. The registry requires
// fileSha256 for MCPB packages; only dist's output carries it, because the
// bytes of a commit's bundles are known only once that commit exists.
func releaseServerJSON(meta serverJSON, version string, bundles []bundleFile) serverJSON {
	s := meta
	s.Schema = serverSchema
	s.Version = version
	s.Packages = nil
	for _, b := range bundles {
		s.Packages = append(s.Packages, serverPackage{
			RegistryType: "mcpb",
			Identifier:   downloadURL(version, b.Name),
			FileSHA256:   b.SHA256,
			Transport:    serverTransport{Type: "stdio"},
		})
	}
	s.Packages = append(s.Packages, serverPackage{
		RegistryType: "oci",
		Identifier:   imageRepo + ":" + version,
		RuntimeHint:  "docker",
		RuntimeArguments: []serverArgument{{
			Type:  "named",
			Name:  "--mount",
			Value: "type=bind,src={vault},dst=/vault",
			Variables: map[string]serverInput{"vault": {
				Description: "The folder of markdown notes to serve",
				Format:      "filepath",
				IsRequired:  true,
			}},
		}},
		Transport: serverTransport{Type: "stdio"},
	})
	return s
}

// downloadURL is where a release's file is published.
func downloadURL(version, file string) string {
	return repoURL + "/releases/download/v" + version + "/" + file
}
