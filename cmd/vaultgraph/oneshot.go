package main

import (
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// withOneShot says that the process syncs and exits (sync without
// --watch, call when it owns the store): the embedded store then keeps no keyword postings for a vault
// it writes from scratch (memstore.Store.DeferKeywordPostings), ~40 MB of
// a 100k-note first sync's live heap that nothing of the sync reads, and
// loads the search index of a vault it holds already only when something
// searches (memstore.Store.LoadSearchOnUse): a warm one-shot sync spent
// ~0.8 CPU-s loading it after its sync, and waited for that load to exit.
// A search, from a client served meanwhile, loads or builds them at once.
func withOneShot() appOption { return func(o *appOptions) { o.oneShot = true } }

// prepareOneShot applies withOneShot to the store just opened.
func prepareOneShot(store core.StoreProvider) {
	if s, ok := store.(*memstore.Store); ok {
		s.DeferKeywordPostings()
		s.LoadSearchOnUse()
	}
}
