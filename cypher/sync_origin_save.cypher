// Records where the project's last full sync ran (issue 44.8).
MERGE (g:GraphMeta {project: $project})
SET g.syncHost = $host, g.syncPath = $path, g.syncedAt = $at
