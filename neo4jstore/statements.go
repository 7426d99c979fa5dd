package neo4jstore

import (
	"maps"
	"sync"

	"github.com/vaultgraph/vaultgraph/cypher"
)

// statement is a named Cypher statement from package cypher.
type statement struct {
	name string
	text string
}

// used records every statement name the package asked for, so a test can
// check that package cypher holds no file nobody uses.
var used sync.Map

// stmt loads a statement by name at package initialisation; a missing file
// panics at start-up, which every test run catches.
func stmt(name string) statement {
	used.Store(name, true)
	return statement{name: name, text: cypher.MustGet(name)}
}

// Every statement the store runs. Grouped as in the cypher folder.
var (
	stmtSchemaNoteKey           = stmt("schema_note_key")
	stmtNoteContextNone         = stmt("note_context_none")
	stmtNoteContextOut          = stmt("note_context_out")
	stmtNoteContextIn           = stmt("note_context_in")
	stmtNoteContextBoth         = stmt("note_context_both")
	stmtNoteContextBalanced     = stmt("note_context_balanced")
	stmtNoteContextIDs          = stmt("note_context_ids")
	stmtCatalogLoad             = stmt("catalog_load")
	stmtCatalogNotes            = stmt("catalog_notes")
	stmtCatalogChanges          = stmt("catalog_changes")
	stmtChangesFollow           = stmt("changes_follow")
	stmtCatalogRows             = stmt("catalog_rows")
	stmtCatalogLinks            = stmt("catalog_links")
	stmtSchemaGraphChangeKey    = stmt("schema_graph_change_key")
	stmtSchemaLeaseKey          = stmt("schema_lease_key")
	stmtSchemaGraphRankKey      = stmt("schema_graph_rank_key")
	stmtLeaseTake               = stmt("lease_take")
	stmtLeaseRelease            = stmt("lease_release")
	stmtRanksRead               = stmt("ranks_read")
	stmtRanksState              = stmt("ranks_state")
	stmtRanksGraph              = stmt("ranks_graph")
	stmtProjectSettled          = stmt("project_settled")
	stmtRanksSave               = stmt("ranks_save")
	stmtSchemaUnresolvedKey     = stmt("schema_unresolved_key")
	stmtSchemaGraphMetaKey      = stmt("schema_graph_meta_key")
	stmtSchemaMigrationKey      = stmt("schema_migration_key")
	stmtSchemaNoteInDegree      = stmt("schema_note_in_degree")
	stmtSchemaNoteOutDegree     = stmt("schema_note_out_degree")
	stmtSchemaNoteFulltext      = stmt("schema_note_fulltext")
	stmtSchemaNoteFulltextDrop  = stmt("schema_note_fulltext_drop")
	stmtSchemaNoteFulltextAsync = stmt("schema_note_fulltext_async")
	stmtSchemaNoteEmbedding     = stmt("schema_note_embedding")
	stmtSchemaVectorMetaKey     = stmt("schema_vector_meta_key")
	stmtSchemaNoteVectorRev     = stmt("schema_note_vector_rev")
	stmtSchemaAwaitIndexes      = stmt("schema_await_indexes")
	stmtMigrationRecord         = stmt("migration_record")
	stmtMigrationList           = stmt("migration_list")
	stmtStatusComponents        = stmt("status_components")
	stmtStatusIndexes           = stmt("status_indexes")
	stmtHealthProbe             = stmt("health_probe")

	stmtSchemaNoteChangeKey  = stmt("schema_note_change_key")
	stmtSchemaNoteChangeNote = stmt("schema_note_change_note")
	stmtChangeAppend         = stmt("change_append")
	stmtChangeLast           = stmt("change_last")
	stmtChangePage           = stmt("change_page")
	stmtChangePruneAge       = stmt("change_prune_age")
	stmtChangePruneKeep      = stmt("change_prune_keep")

	stmtWriteBumpVersion     = stmt("write_bump_version")
	stmtWriteCreateNotes     = stmt("write_create_notes")
	stmtWriteUpdateNotes     = stmt("write_update_notes")
	stmtWriteAddInDegrees    = stmt("write_add_in_degrees")
	stmtWriteExisting        = stmt("write_existing")
	stmtWriteLinkNew         = stmt("write_link_new")
	stmtWriteLinkExisting    = stmt("write_link_existing")
	stmtWriteResolveLinks    = stmt("write_resolve_links")
	stmtWriteUpdateDegrees   = stmt("write_update_degrees")
	stmtWriteDropOrphans     = stmt("write_drop_orphans")
	stmtWriteAnyGhost        = stmt("write_any_ghost")
	stmtWriteDegreesPending  = stmt("write_degrees_pending")
	stmtReadDegreesPending   = stmt("read_degrees_pending")
	stmtSearchKeywordRefresh = stmt("search_keyword_refresh")
	stmtDeleteUnlinkIncoming = stmt("delete_unlink_incoming")
	stmtDeleteNotes          = stmt("delete_notes")

	stmtReadNote              = stmt("read_note")
	stmtReadNotes             = stmt("read_notes")
	stmtReadTitles            = stmt("read_titles")
	stmtReadDegree            = stmt("read_degree")
	stmtReadCount             = stmt("read_count")
	stmtReadHashes            = stmt("read_hashes")
	stmtReadStates            = stmt("read_states")
	stmtReadUnresolvedLinkers = stmt("read_unresolved_linkers")
	stmtGraphVersion          = stmt("graph_version")
	stmtNeighborsOut          = stmt("neighbors_out")
	stmtNeighborsIn           = stmt("neighbors_in")
	stmtNeighborsBoth         = stmt("neighbors_both")
	stmtPathShortest          = stmt("path_shortest")
	stmtPathWalk              = stmt("path_walk")
	stmtHubsInDegree          = stmt("hubs_in_degree")
	stmtHubsOutDegree         = stmt("hubs_out_degree")
	stmtTagsAny               = stmt("tags_any")
	stmtTagsAll               = stmt("tags_all")
	stmtRandomCount           = stmt("random_count")
	stmtRandomCountTagged     = stmt("random_count_tagged")
	stmtRandomNth             = stmt("random_nth")
	stmtRandomNthTagged       = stmt("random_nth_tagged")

	stmtSchemaNoteEntityID      = stmt("schema_note_entity_id")
	stmtSchemaProjectKey        = stmt("schema_project_key")
	stmtMigrationEntityReparse  = stmt("migration_entity_reparse")
	stmtEntitySearch            = stmt("entity_search")
	stmtEntityGet               = stmt("entity_get")
	stmtEntityGraph             = stmt("entity_graph")
	stmtProjectSave             = stmt("project_save")
	stmtProjectList             = stmt("project_list")
	stmtSyncOriginRead          = stmt("sync_origin_read")
	stmtSyncOriginSave          = stmt("sync_origin_save")
	stmtSchemaMemoryKey         = stmt("schema_memory_key")
	stmtSchemaMemoryContent     = stmt("schema_memory_content")
	stmtSchemaMemoryEventKey    = stmt("schema_memory_event_key")
	stmtSchemaMemoryEventMemory = stmt("schema_memory_event_memory")
	stmtMemoryPut               = stmt("memory_put")
	stmtMemoryGet               = stmt("memory_get")
	stmtMemoryLock              = stmt("memory_lock")
	stmtMemoryUpdate            = stmt("memory_update")
	stmtMemoryEventCreate       = stmt("memory_event_create")
	stmtMemoryEventCloses       = stmt("memory_event_closes")
	stmtMemoryIDsSelected       = stmt("memory_ids_selected")
	stmtMemoryContents          = stmt("memory_contents")
	stmtMemoryTouch             = stmt("memory_touch")
	stmtMemorySetVector         = stmt("memory_set_vector")
	stmtMemoryDelete            = stmt("memory_delete")
	stmtMemoryList              = stmt("memory_list")
	stmtMemoryCount             = stmt("memory_count")
	stmtMemorySearchIDs         = stmt("memory_search_ids")
	stmtMemoryVectors           = stmt("memory_vectors")
	stmtMemoryGetMany           = stmt("memory_get_many")
	stmtMemoryEvents            = stmt("memory_events")
	stmtMemoryRelate            = stmt("memory_relate")
	stmtMemoryUnrelatePair      = stmt("memory_unrelate_pair")
	stmtMemoryUnrelateAll       = stmt("memory_unrelate_all")
	stmtMemoryRelations         = stmt("memory_relations")
	stmtSchemaVectorIndexInfo   = stmt("schema_vector_index_info")
	stmtSchemaDropNoteEmbedding = stmt("schema_drop_note_embedding")
	stmtSearchStale             = stmt("search_stale")
	stmtSearchSetVectors        = stmt("search_set_vectors")
	stmtSearchVectorIndex       = stmt("search_vector_index")
	stmtSearchBumpVectorRev     = stmt("search_bump_vector_rev")
	stmtSearchVectorRev         = stmt("search_vector_rev")
	stmtSearchMirrorPage        = stmt("search_mirror_page")
	stmtSearchMirrorDelta       = stmt("search_mirror_delta")
	stmtSearchMirrorCheck       = stmt("search_mirror_check")
	stmtSearchVectorExact       = stmt("search_vector_exact")
	stmtSearchKeyword           = stmt("search_keyword")
	stmtSearchKeywordStats      = stmt("search_keyword_stats")
)

// with returns a copy of params with one more entry.
func with(params map[string]any, key string, value any) map[string]any {
	out := maps.Clone(params)
	out[key] = value
	return out
}

// distinct returns ids without repeats, in first-seen order.
func distinct(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
