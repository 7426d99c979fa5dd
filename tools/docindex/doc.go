// Package docindex is the document half of the memory toolset (spec 004):
// index_file, index_directory, search, search_with_filters,
// search_with_budget, delete_chunks, delete_file, clear_index and
// get_index_stats, each a spec file and a handler file. Every answer is
// spec 004's envelope (package envelope). The memory tools of the same
// toolset live in tools/memory.
package docindex
