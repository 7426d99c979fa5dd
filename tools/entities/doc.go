// Package entities is the entity toolset of spec 003: list_projects,
// search_entities, get_entity and get_entity_graph, read-only and isolated
// by project. Every input and output schema is the spec's, verbatim
// (schemas/*.json); arguments are checked against the input schema before
// anything runs, every call is bounded by a 30-second timeout, and every
// failure is the spec's envelope {"error":{"code","message","details"}}
// with one of PROJECT_NOT_FOUND, VALIDATION_ERROR, ENTITY_NOT_FOUND and
// INTERNAL_ERROR, sent as a tool result with isError set.
package entities
