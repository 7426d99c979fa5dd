package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/internal/plural"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/neo4jstore"
	"github.com/vaultgraph/vaultgraph/semantic"
	"github.com/vaultgraph/vaultgraph/vault"
)

// errDoctorFound is doctor's answer when a check found a problem: exit 1.
var errDoctorFound = errors.New("doctor found problems")

func newDoctorCommand(s streams) *cobra.Command {
	var fix, strict bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the configuration, the store and the vault, and say what to fix",
		Long: `doctor checks, in order, and says for each what is wrong and what to do:
  - the configuration (which file, valid);
  - the vault and its identity (.vaultgraph/vault.json);
  - the store: whether it answers, its version, schema migrations pending
    (doctor only looks: 'vaultgraph migrate' applies them), and for the
    embedded store whether a running vaultgraph holds it;
  - the vault's lint (broken links, frontmatter that does not parse,
    duplicate tags; 'vaultgraph check' lists them all): WARNINGS, since every
    real vault has some and serve works with them;
  - notes whose file and graph disagree (in the vault and not in the graph,
    the other way round, or with other content): --fix syncs the vault into
    the store to repair them;
  - the notes still waiting for a vector of the embedding model.

Each PROBLEM line ends with the next step to take ("next: ..."). It writes
nothing unless --fix is given. The exit status is 1 when a check found a
PROBLEM, 0 otherwise: WARNINGS alone exit 0, unless --strict.`,
		Example: `  vaultgraph doctor --vault ~/notes
  vaultgraph doctor --store neo4j --vault /srv/vault --fix`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, logger, err := loadConfig(cmd, s, true)
			if err != nil {
				return err
			}
			return runDoctor(cmd.Context(), cfg, logger, s.out, fix, strict)
		},
	}
	cmd.Flags().BoolVar(&fix, "fix", false, "sync the vault into the store to repair the notes whose file and graph disagree")
	cmd.Flags().BoolVar(&strict, "strict", false, "exit 1 on WARNINGS (the vault's lint) too")
	return cmd
}

// doctorReport prints checks and remembers whether one failed (a PROBLEM)
// or warned (the vault's lint, a WARNING).
type doctorReport struct {
	w                  io.Writer
	problems, warnings int
	strict             bool // warnings fail too
}

func (r *doctorReport) ok(format string, args ...any) {
	fmt.Fprintf(r.w, "ok       "+format+"\n", args...)
}

// problem reports what is wrong and, in next, what to do about it.
func (r *doctorReport) problem(next, format string, args ...any) {
	r.problems++
	fmt.Fprintf(r.w, "PROBLEM  "+format+"; next: "+next+"\n", args...)
}

func (r *doctorReport) warning(format string, args ...any) {
	r.warnings++
	fmt.Fprintf(r.w, "WARNING  "+format+"\n", args...)
}

func (r *doctorReport) note(format string, args ...any) {
	fmt.Fprintf(r.w, "         "+format+"\n", args...)
}

func runDoctor(ctx context.Context, cfg *config.Config, logger *slog.Logger, w io.Writer, fix, strict bool) error {
	r := &doctorReport{w: w, strict: strict}
	if cfg.File != "" {
		r.ok("configuration: %s, valid", cfg.File)
	} else {
		r.ok("configuration: no file (defaults, environment and flags), valid")
	}
	p := cfg.ServedProjects()[0]
	id, hasID, err := vault.ReadIdentity(p.Path)
	switch {
	case err != nil:
		r.problem("repair or remove "+vault.IdentityFile+" in the vault (the next serve or sync writes a new one; the graph of a new identity is synced again)", "vault %s: %v", p.Path, err)
	case !hasID:
		r.ok("vault %s: no identity yet (the first serve or sync writes %s)", p.Path, vault.IdentityFile)
	default:
		r.ok("vault %s: identity %s, project %q", p.Path, id.ID, id.Key)
	}

	// The vault as it is now, parsed into a throwaway graph.
	parsed := memstore.New()
	m, err := vault.NewMirror(vault.Config{Root: p.Path, Project: "doctor", Store: parsed, Ignore: cfg.Ignore, Logger: quiet(logger), NoProgress: true})
	if err != nil {
		return err
	}
	defer m.Close()
	stats, err := m.Sync(ctx)
	if err != nil {
		return err
	}
	if notes, problems := m.Lint().Count(); problems > 0 {
		entries := m.Lint().All()
		var first []string
		for _, e := range entries[:min(3, len(entries))] {
			first = append(first, e.Path+": "+e.Problems[0])
		}
		r.warning("vault: %s in %d of %s, e.g. %s ('vaultgraph check' lists them all)", plural.Count(problems, "problem"), notes, plural.Count(stats.Notes, "note"), strings.Join(first, "; "))
	} else {
		r.ok("vault: %s, no broken links or frontmatter errors", plural.Count(stats.Notes, "note"))
	}

	store, err := doctorStore(ctx, cfg, logger, r)
	if store == nil || err != nil {
		return r.result()
	}
	defer func() { _ = store.Close(context.WithoutCancel(ctx)) }()
	if hasID {
		want, _ := parsed.NoteHashes(ctx, "doctor")
		have, err := store.NoteHashes(ctx, id.Key)
		if err != nil {
			r.problem("run 'vaultgraph sync' with this configuration and read its error", "graph: cannot read the project's notes: %v", err)
		} else if diff := compareNotes(want, have); len(diff) > 0 {
			if fix {
				_ = store.Close(context.WithoutCancel(ctx))
				if err := runSync(ctx, cfg, logger, false, ""); err != nil {
					r.problem("run 'vaultgraph sync' with this configuration and read its error", "graph: %s disagreed with the vault's files and the repair failed: %v", plural.Count(len(diff), "note"), err)
				} else {
					r.ok("graph: %s disagreed with the vault's files; repaired by a sync", plural.Count(len(diff), "note"))
				}
				return r.result()
			}
			r.problem("'vaultgraph doctor --fix' (or a sync) repairs them", "graph: %s in disagreement with the vault's files, e.g. %s", plural.Count(len(diff), "note"), strings.Join(diff[:min(3, len(diff))], "; "))
		} else {
			r.ok("graph: every note of the vault is in the graph with its file's content")
		}
	}
	if prog, ok := semantic.ReadProgressFile(config.VaultStateDir(cfg.StateDir, p.Path)); ok && !prog.Done {
		r.note("embedding: %d of %s still wait for a vector of %s (serve or sync --watch embeds them; search uses keywords and the static table meanwhile)", prog.Total-prog.Embedded, plural.Count(prog.Total, "note"), prog.Model)
	}
	return r.result()
}

// result prints the count of problems and warnings and decides the exit.
func (r *doctorReport) result() error {
	fmt.Fprintf(r.w, "%s, %s\n", plural.Count(r.problems, "problem"), plural.Count(r.warnings, "warning"))
	if r.problems > 0 || (r.strict && r.warnings > 0) {
		return errDoctorFound
	}
	return nil
}

// doctorStore opens the configured store for looking only, reporting what
// it finds; nil when it cannot be opened (already reported).
func doctorStore(ctx context.Context, cfg *config.Config, logger *slog.Logger, r *doctorReport) (readCloser, error) {
	switch cfg.Store {
	case config.StoreNeo4j:
		nc := neo4jConfig(cfg, quiet(logger))
		nc.ReadOnlySchema = true
		s, err := neo4jstore.Open(ctx, nc)
		if err != nil {
			r.problem("start Neo4j, or fix neo4j.uri, neo4j.user and neo4j.password (VAULTGRAPH_NEO4J_PASSWORD); 'vaultgraph status --config-only' shows where each came from", "store: Neo4j at %s: %s: %v", cfg.Neo4j.URI, neo4jstore.Problem(err), err)
			return nil, err
		}
		st, err := s.Status(ctx)
		if err != nil {
			r.problem("start Neo4j, or fix neo4j.uri, neo4j.user and neo4j.password (VAULTGRAPH_NEO4J_PASSWORD); 'vaultgraph status --config-only' shows where each came from", "store: Neo4j at %s: %v", cfg.Neo4j.URI, err)
			_ = s.Close(context.WithoutCancel(ctx))
			return nil, err
		}
		r.ok("store: Neo4j %s %s at %s", st.ServerVersion, st.Edition, cfg.Neo4j.URI)
		if len(st.Pending) > 0 {
			r.problem("run 'vaultgraph migrate' (or the first serve or sync applies them)", "store: %d schema migrations pending", len(st.Pending))
		}
		return s, nil
	default:
		dir := config.VaultStateDir(cfg.StateDir, cfg.ServedProjects()[0].Path)
		s, err := memstore.Open(dir, memstore.WithLogger(logger))
		if errors.Is(err, memstore.ErrStateLocked) {
			r.ok("store: embedded in %s, held by a running vaultgraph (serve or sync); the graph is compared when none runs", dir)
			return nil, nil
		}
		if err != nil {
			r.problem("check that the folder is yours, writable and on a disk with free space, or pass another --state-dir", "store: embedded in %s: %v", dir, err)
			return nil, err
		}
		r.ok("store: embedded in %s, not in use", dir)
		return s, nil
	}
}

// readCloser is a store doctor reads and then closes.
type readCloser interface {
	core.GraphReader
	Close(context.Context) error
}

// compareNotes lists the notes whose file (want: ID → hash) and graph (have)
// disagree.
func compareNotes(want, have map[string]string) []string {
	var out []string
	for id, h := range want {
		switch g, ok := have[id]; {
		case !ok:
			out = append(out, id+" is not in the graph")
		case g != h:
			out = append(out, id+" has other content in the graph")
		}
	}
	for id := range have {
		if _, ok := want[id]; !ok {
			out = append(out, id+" is in the graph but not in the vault")
		}
	}
	sort.Strings(out)
	return out
}

// quiet is logger without INFO lines: doctor prints its own report.
func quiet(logger *slog.Logger) *slog.Logger {
	return slog.New(levelFloor{logger.Handler(), slog.LevelWarn})
}

// levelFloor drops records below min.
type levelFloor struct {
	slog.Handler
	min slog.Level
}

func (h levelFloor) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}
