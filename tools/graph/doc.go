// Package graph is the graph toolset (spec 000, server behaviour in spec
// 001): search, get_node, get_neighbors, find_path, get_hubs,
// search_by_tags, random_node, create_node, update_node and delete_node.
//
// Each tool has a spec file (name, description, input schema, annotations)
// and a handler file (decode, one call to the graph service, shape the
// answer). Contract decisions the spec leaves open are written where they
// are implemented and listed in the project's docs; in short:
//   - get_node depth 1: every neighbour carries "direction": "in" | "out";
//   - get_hubs also accepts "pagerank" (spec 001);
//   - update_node with a new title renames the file, rewrites incoming
//     links and adds "renamed": {from, to, filesChanged, linksChanged,
//     relinked: [{id, links}]};
//   - _warnings: added to the next successful object answer; an array or
//     null answer keeps its exact shape in the first text content and gets
//     the warnings as a second text content {"_warnings": [...]}.
package graph
