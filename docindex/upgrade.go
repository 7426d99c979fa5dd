package docindex

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/vaultgraph/vaultgraph/internal/lowprio"
)

// Upgrades: with a fast tier (Config.Fast) chunks are stored with its
// vectors, and RunUpgrades gives them Embedder's in the background, as the
// semantic indexer does for notes (issue 49.6: index_directory embedded
// every chunk with the transformer before answering, past an MCP client's
// request timeout on a busy machine).

// upgradeBatch is how many chunks one upgrade step embeds and stores: a
// few seconds of transformer work, so a stop loses little.
const upgradeBatch = 32

// upgradeRetry is the pause after a failed upgrade step.
const upgradeRetry = 30 * time.Second

// wakeUpgrades asks RunUpgrades for a pass; it never blocks.
func (s *Service) wakeUpgrades() {
	select {
	case s.upgrade <- struct{}{}:
	default:
	}
}

// RunUpgrades embeds with Embedder every chunk stored with another
// model's vector (the fast tier's, or an earlier model's) at once and then
// whenever chunks are indexed, until ctx ends; call it in a goroutine. It
// works at the lowest CPU priority (lowprio). Without a fast tier it
// returns at once: chunks are embedded by Embedder when indexed.
func (s *Service) RunUpgrades(ctx context.Context) {
	if s.cfg.Fast == nil {
		return
	}
	for {
		n, err := s.Upgrade(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			s.log.Warn("docindex: upgrading chunk vectors failed; retrying", "err", err, "retry_in_s", upgradeRetry.Seconds())
			select {
			case <-ctx.Done():
				return
			case <-time.After(upgradeRetry):
			}
			continue
		case n > 0:
			s.log.Info("docindex: chunks embedded by the model", "chunks", n, "model", s.cfg.Embedder.Model())
		}
		select {
		case <-ctx.Done():
			return
		case <-s.upgrade:
		}
	}
}

// Upgrade embeds with Embedder every chunk that has another model's vector
// and returns how many it stored. Each batch is stored as it is embedded.
func (s *Service) Upgrade(ctx context.Context) (int, error) {
	model := s.cfg.Embedder.Model()
	total := 0
	for {
		stale, err := s.cfg.Store.StaleChunks(ctx, s.cfg.Project, model, upgradeBatch)
		if err != nil {
			return total, fmt.Errorf("docindex: find chunks to embed: %w", err)
		}
		if len(stale) == 0 {
			return total, nil
		}
		texts := make([]string, len(stale))
		for i, c := range stale {
			texts[i] = embedText(c.HeaderPath, c.Content)
		}
		runtime.Gosched()
		vs, err := s.cfg.Embedder.Embed(lowprio.With(ctx), texts)
		if err != nil {
			return total, fmt.Errorf("docindex: embed chunks: %w", err)
		}
		if len(vs) != len(texts) {
			return total, fmt.Errorf("docindex: embedder returned %d vectors for %d texts", len(vs), len(texts))
		}
		m := make(map[string][]float32, len(stale))
		for i, c := range stale {
			m[c.ID] = vs[i]
		}
		if err := s.cfg.Store.SetChunkVectors(ctx, s.cfg.Project, model, m); err != nil {
			return total, fmt.Errorf("docindex: store chunk vectors: %w", err)
		}
		total += len(stale)
	}
}
