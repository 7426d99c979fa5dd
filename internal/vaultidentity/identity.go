// Package vaultidentity gives every served vault its identity before the
// store is used: the UUID and project key kept in the vault's
// .vaultgraph/vault.json (see vault.Identity), checked against the
// projects the store has recorded, and the adoption of an older or moved
// vault's project (sync --adopt). It knows the store only through
// core.StoreProvider: cmd opens the store and calls Identify.
package vaultidentity

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/vault"
)

// ErrIdentity marks a vault whose identity clashes with the store's
// records; the message says what to do.
var ErrIdentity = errors.New("vault identity")

// Identify gives every served project its vault's identity (see
// vault.Identity): the UUID kept in the vault's .vaultgraph/vault.json and
// the project key its notes carry in the store. A vault without one gets
// a new one, except that a vault whose embedded state already holds notes
// under the key vaultgraph gave it before identities existed ("default",
// or its slug) keeps that key: the state folder has only ever been this
// vault's. On a shared store (Neo4j) such notes might be another vault's,
// so they are left alone and a log line says how to adopt them.
//
// It refuses, with ErrIdentity, a vault whose project key the store has
// recorded for another vault, and a copy of a vault served on the same
// host (same identity, another folder that still holds it). adopt, when
// not empty, makes the primary vault the project with that key (its
// record's ID when there is one): the way to claim the notes, memories and
// history of an older vaultgraph's project, or of a vault moved or copied.
func Identify(ctx context.Context, cfg *config.Config, served []config.ProjectConfig, store core.StoreProvider, adopt string, logger *slog.Logger) error {
	host, _ := os.Hostname()
	records, err := store.ListProjects(ctx)
	if err != nil {
		// A store that is down (Neo4j at start) cannot be checked now;
		// the identity in the vault stands on its own.
		logger.Warn("cannot read the store's project records to check vault identities", "err", err)
		records = nil
	}
	for i := range served {
		p := &served[i]
		id, ok, err := vault.ReadIdentity(p.Path)
		if err != nil {
			return err
		}
		legacy := p.Key
		if !ok {
			id = vault.NewIdentity()
			if p.ID != "" {
				id.ID, id.Key = p.ID, p.ID
			}
			if n, err := store.CountNotes(ctx, legacy); err == nil && n > 0 {
				if cfg.Store == config.StoreEmbedded {
					id.Key = legacy
				} else if adopt == "" {
					logger.Warn(fmt.Sprintf("the store holds %d notes of a vault without an identity (project %q, from an older vaultgraph); if they are this vault's, run 'vaultgraph sync --vault %s --adopt %s' once to keep its memories and history", n, legacy, p.Path, legacy))
				}
			}
			if err := vault.WriteIdentity(p.Path, id); err != nil {
				// A read-only vault: an identity derived from where it is.
				id.ID = core.NameUUID("vault\x00" + host + "\x00" + p.Path)
				id.Key = id.ID
				logger.Warn("cannot write the vault's identity file; using one derived from its host and path", "path", filepath.Join(p.Path, vault.IdentityFile), "err", err)
			} else {
				logger.Info("vault identity created", "path", p.Path, "id", id.ID, "key", id.Key)
			}
		}
		if p.ID != "" && p.ID != id.ID {
			return fmt.Errorf("%w: the configuration gives the vault %s the id %s, but its %s says %s; remove one of them", ErrIdentity, p.Path, p.ID, vault.IdentityFile, id.ID)
		}
		if adopt != "" && i == 0 {
			if id, err = adoptProject(ctx, store, records, p.Path, id, adopt); err != nil {
				return err
			}
		}
		if err := checkIdentity(records, id, host, p.Path); err != nil {
			return err
		}
		p.ID, p.Key = id.ID, id.Key
	}
	return nil
}

// adoptProject makes the vault at path the project with key adopt.
func adoptProject(ctx context.Context, store core.StoreProvider, records []core.Project, path string, id vault.Identity, adopt string) (vault.Identity, error) {
	found := false
	for _, r := range records {
		if r.Key == adopt && !legacyRecord(r) {
			id.ID, found = r.ID, true
		}
	}
	if !found {
		if n, err := store.CountNotes(ctx, adopt); err != nil || n == 0 {
			return id, fmt.Errorf("%w: there is no project %q in the store to adopt (vaultgraph status lists the projects)", ErrIdentity, adopt)
		}
	}
	id.Key = adopt
	if err := vault.WriteIdentity(path, id); err != nil {
		return id, err
	}
	return id, nil
}

// legacyRecord reports whether a project record was written before vaults
// had identities: its ID is the one derived from its key, the same on
// every machine, so it says nothing about which vault it is.
func legacyRecord(r core.Project) bool { return r.ID == core.ProjectID(r.Key) }

// checkIdentity refuses an identity the store's records say belongs to
// another vault.
func checkIdentity(records []core.Project, id vault.Identity, host, path string) error {
	for _, r := range records {
		switch {
		case r.Key == id.Key && r.ID != id.ID && !legacyRecord(r):
			return fmt.Errorf("%w: project %q in the store is another vault's (id %s, last served from %s:%s); this vault (%s) is %s. "+
				"If this vault is that one, moved or copied, run 'vaultgraph sync --vault %s --adopt %s' once; otherwise delete %s in this vault to give it an identity of its own",
				ErrIdentity, r.Key, r.ID, r.Host, r.Path, path, id.ID, path, r.Key, vault.IdentityFile)
		case r.ID == id.ID && r.Host == host && r.Path != "" && r.Path != path && sameIdentityAt(r.Path, id.ID):
			return fmt.Errorf("%w: the vault %s is a copy of %s (both carry identity %s in %s, and both would write project %q); delete %s in the copy to give it an identity of its own, or serve only one of them",
				ErrIdentity, path, r.Path, id.ID, vault.IdentityFile, id.Key, vault.IdentityFile)
		}
	}
	return nil
}

// sameIdentityAt reports whether the folder at path is a vault with the
// identity id.
func sameIdentityAt(path, id string) bool {
	other, ok, err := vault.ReadIdentity(path)
	return err == nil && ok && other.ID == id
}
