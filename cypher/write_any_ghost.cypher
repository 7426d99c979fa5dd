// Whether the project has any ghost (unresolved link key) at all: a staged
// write that finds none skips resolving the keys its notes claim.
RETURN EXISTS { MATCH (u:Unresolved {project: $project}) } AS any
