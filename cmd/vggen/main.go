// Command vggen writes a deterministic synthetic vault for benchmarks:
//
//	go run ./cmd/vggen -n 10000 -seed 1 -out /tmp/vault
//
// The same -n and -seed always give byte-identical files (see package
// benchgen for what the vault holds). A summary goes to stderr; with
// -manifest FILE the full manifest (paths, tags, link counts, in-degrees)
// is written as JSON.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/vaultgraph/vaultgraph/benchgen"
)

func main() { os.Exit(run(os.Args[1:], os.Stderr)) }

func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("vggen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 10000, "number of notes")
	seed := fs.Uint64("seed", 1, "seed: the same -n and -seed give the same vault")
	out := fs.String("out", "", "folder to write the vault into; created, or must be empty (required)")
	manifest := fs.String("manifest", "", "also write the manifest as JSON to this file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: vggen -n NOTES -seed SEED -out DIR [-manifest FILE]")
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	start := time.Now()
	m, err := benchgen.Generate(*out, benchgen.Config{Notes: *n, Seed: *seed})
	if err != nil {
		log.Error("generate", "err", err)
		return 1
	}
	hub := m.Hubs(1)[0]
	log.Info("vault generated", "dir", *out, "notes", len(m.Notes), "folders", m.Folders,
		"bytes", m.Bytes, "links", m.Links, "broken", m.Broken,
		"top_hub", hub.Path, "top_hub_in_degree", hub.InDegree, "duration", time.Since(start).Round(time.Millisecond))
	if *manifest != "" {
		if err := writeJSON(*manifest, m); err != nil {
			log.Error("write manifest", "err", err)
			return 1
		}
	}
	return 0
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
