package vault

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/vaultgraph/vaultgraph/confine"
	"github.com/vaultgraph/vaultgraph/core"
)

// Identity is what makes a vault a project of its own in a store that
// holds several (one Neo4j for a team): a UUID created once and kept in
// the vault, in .vaultgraph/vault.json, so that every process serving the
// vault, on any host, and every copy made with it, knows it; and the
// project key its notes carry in the store (the ID itself, or the key of
// a project the vault adopted, such as the "default" of vaultgraph's
// first versions). A sync or a server works only on its own project's
// notes, so two vaults never overwrite each other.
type Identity struct {
	ID  string `json:"id"`  // UUID; the project ID of spec 003
	Key string `json:"key"` // project key in the store
}

// IdentityFile is where a vault keeps its Identity, relative to its root.
const IdentityFile = ".vaultgraph/vault.json"

// NewIdentity returns a new, random identity whose key is its ID.
func NewIdentity() Identity {
	id := core.NewUUID()
	return Identity{ID: id, Key: id}
}

// ReadIdentity reads the identity of the vault at root; ok is false when
// it has none yet.
func ReadIdentity(root string) (id Identity, ok bool, err error) {
	r, err := confine.OpenRoot(root)
	if err != nil {
		return id, false, err
	}
	defer r.Close()
	raw, _, err := r.ReadFile(IdentityFile, 1<<16)
	if errors.Is(err, fs.ErrNotExist) {
		return id, false, nil
	}
	if err != nil {
		return id, false, fmt.Errorf("vault: read %s: %w", IdentityFile, err)
	}
	if err := json.Unmarshal(raw, &id); err != nil || !isUUID(id.ID) || id.Key == "" {
		return id, false, fmt.Errorf("vault: %s in %s is not a vault identity ({\"id\": UUID, \"key\": project key}); fix it or delete it to give the vault a new identity", IdentityFile, root)
	}
	return id, true, nil
}

// WriteIdentity writes id as the identity of the vault at root.
func WriteIdentity(root string, id Identity) error {
	r, err := confine.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	data, _ := json.MarshalIndent(id, "", "  ")
	if err := r.Replace(IdentityFile, append(data, '\n'), confine.WriteOptions{}); err != nil {
		return fmt.Errorf("vault: write %s: %w", IdentityFile, err)
	}
	return nil
}

func isUUID(s string) bool { _, ok := core.ParseUUID(s); return ok }
