// Where the project's last full sync ran (issue 44.8): kept on the
// project's GraphMeta node.
OPTIONAL MATCH (g:GraphMeta {project: $project})
RETURN g.syncHost AS host, g.syncPath AS path, g.syncedAt AS at
