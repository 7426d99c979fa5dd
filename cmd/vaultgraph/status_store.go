package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/embedding"
	"github.com/vaultgraph/vaultgraph/internal/plural"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/neo4jstore"
	"github.com/vaultgraph/vaultgraph/semantic"
	"github.com/vaultgraph/vaultgraph/vault"
)

// storeStatusTimeout bounds how long status waits for the store: it is a
// quick look, not a health check that may hang a shell.
const storeStatusTimeout = 10 * time.Second

// errStoreUnreachable is status's answer when the store cannot be reached:
// the report says why; the exit status is 1.
var errStoreUnreachable = errors.New("the store cannot be reached")

// writeStoreStatus appends what the configured store holds: for Neo4j the
// server, the schema migrations applied and pending (status never applies
// them: `vaultgraph migrate` or the first serve or sync does) and every
// index with its state; for the embedded store its folder. It returns
// errStoreUnreachable when the store cannot be reached, after saying so.
func writeStoreStatus(ctx context.Context, w io.Writer, cfg *config.Config, logger *slog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, storeStatusTimeout)
	defer cancel()
	fmt.Fprintln(w)
	var err error
	switch cfg.Store {
	case config.StoreNeo4j:
		err = writeNeo4jStatus(ctx, w, cfg, logger)
	default:
		writeEmbeddedStatus(w, cfg)
	}
	writeEmbeddingStatus(w, cfg)
	return err
}

// writeEmbeddingStatus says where the background embedding stands, from
// the progress file the indexer of serve or sync keeps in the vault's
// state folder.
func writeEmbeddingStatus(w io.Writer, cfg *config.Config) {
	served := cfg.ServedProjects()
	if len(served) == 0 || cfg.Embedding.Provider == embedding.ProviderNone {
		return
	}
	p, ok := semantic.ReadProgressFile(config.VaultStateDir(cfg.StateDir, served[0].Path))
	fmt.Fprintln(w)
	switch {
	case !ok:
		fmt.Fprintln(w, "embedding: no pass recorded yet (serve, or sync --embed, embeds the notes)")
	case p.Done:
		fmt.Fprintf(w, "embedding: every note has a vector of %s (last pass embedded %d, %s)\n",
			p.Model, p.Embedded, p.Updated.Format(time.RFC3339))
	default:
		fmt.Fprintf(w, "embedding: %d of %s embedded with %s by the last pass (%.1f notes/s, %s); "+
			"notes without one are searched through the static table and keywords until a serve, sync --watch or sync --embed embeds them\n",
			p.Embedded, plural.Count(p.Total, "note"), p.Model, p.NotesPerS, p.Updated.Format(time.RFC3339))
	}
}

func writeNeo4jStatus(ctx context.Context, w io.Writer, cfg *config.Config, logger *slog.Logger) error {
	fmt.Fprintf(w, "store: neo4j at %s\n", cfg.Neo4j.URI)
	nc := neo4jConfig(cfg, logger)
	nc.ReadOnlySchema = true // status looks; it never writes to a team's database
	s, err := neo4jstore.Open(ctx, nc)
	if err != nil {
		fmt.Fprintf(w, "  %s: %v\n", neo4jstore.Problem(err), err)
		return errStoreUnreachable
	}
	defer func() { _ = s.Close(context.WithoutCancel(ctx)) }()
	st, err := s.Status(ctx)
	if err != nil {
		fmt.Fprintf(w, "  status failed: %v\n", err)
		return errStoreUnreachable
	}
	db := st.Database
	if db == "" {
		db = "(server default)"
	}
	fmt.Fprintf(w, "  server: Neo4j %s %s, database %s\n", st.ServerVersion, st.Edition, db)
	for _, p := range cfg.ServedProjects() {
		id, ok, err := vault.ReadIdentity(p.Path)
		switch {
		case err != nil:
			fmt.Fprintf(w, "  vault %s: %v\n", p.Path, err)
		case !ok:
			fmt.Fprintf(w, "  vault %s: no identity yet (the first serve or sync gives it one, in %s)\n", p.Path, vault.IdentityFile)
		default:
			if n, err := s.CountNotes(ctx, id.Key); err == nil {
				fmt.Fprintf(w, "  notes: %d in project %q (%s, vault id %s)\n", n, id.Key, p.Path, id.ID)
			}
		}
	}

	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "VERSION\tAPPLIED AT\tNAME\n")
	for _, m := range st.Migrations {
		fmt.Fprintf(tw, "%d\t%s\t%s\n", m.Version, m.AppliedAt.UTC().Format(time.RFC3339), m.Name)
	}
	for _, m := range st.Pending {
		fmt.Fprintf(tw, "%d\t%s\t%s\n", m.Version, "PENDING", m.Name)
	}
	_ = tw.Flush()
	if len(st.Pending) > 0 {
		fmt.Fprintf(w, "%d schema migrations pending: 'vaultgraph migrate' (or the next serve or sync) applies them\n", len(st.Pending))
	}

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "INDEX\tTYPE\tON\tSTATE\n")
	for _, ix := range st.Indexes {
		on := strings.Join(ix.LabelsOrTypes, ",")
		if len(ix.Properties) > 0 {
			on += "(" + strings.Join(ix.Properties, ",") + ")"
		}
		state := ix.State
		if ix.State != "ONLINE" {
			state = fmt.Sprintf("%s %.0f%%", ix.State, ix.PopulationPercent)
		}
		if d, ok := ix.Options["vector.dimensions"]; ok {
			on += fmt.Sprintf(" dim=%v", d)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ix.Name, ix.Type, on, state)
	}
	_ = tw.Flush()
	return nil
}

func writeEmbeddedStatus(w io.Writer, cfg *config.Config) {
	served := cfg.ServedProjects()
	if len(served) == 0 {
		fmt.Fprintf(w, "store: embedded in %s (no vault configured, so no state to show)\n", cfg.StateDir)
		return
	}
	dir := config.VaultStateDir(cfg.StateDir, served[0].Path)
	fmt.Fprintf(w, "store: embedded in %s\n", dir)
	fi, err := os.Stat(filepath.Join(dir, memstore.StateFileName))
	switch {
	case errors.Is(err, os.ErrNotExist):
		fmt.Fprintln(w, "  empty: no state yet (serve or sync creates it)")
	case err != nil:
		fmt.Fprintf(w, "  not readable: %v\n", err)
	default:
		fmt.Fprintf(w, "  state file: %s, %d KiB, written %s\n", memstore.StateFileName, (fi.Size()+1023)/1024,
			fi.ModTime().UTC().Format(time.RFC3339))
	}
	// The file is held open by a running serve or sync; status does not
	// wait for it or open it (doctor says who holds it).
	fmt.Fprintln(w, "  notes: kept in the state file by serve and sync; a restart reads only the notes changed since")
}
