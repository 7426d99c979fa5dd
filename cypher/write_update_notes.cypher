// Replaces the properties of notes that existed before this transaction
// (see write_create_notes for what each holds). Relationships and degrees
// stay until write_link_existing and write_update_degrees adjust them.
UNWIND $rows AS row
MATCH (n:Note {project: $project, id: row.id})
SET n.doc = row.doc,
    n.head = row.head,
    n.state = row.state,
    n.targets = row.targets,
    n.title = row.title,
    n.path = row.path,
    n.content = row.content,
    n.tagsNorm = row.tagsNorm,
    n.hash = row.hash,
    n.mtime = row.mtime,
    n.keys = row.keys,
    n.linkKeys = row.linkKeys,
    n.entityId = row.entityId,
    n.entityType = row.entityType,
    n.entityTitleKey = row.entityTitleKey,
    n.entitySlugKey = row.entitySlugKey,
    n.entitySummaryKey = row.entitySummaryKey,
    n.entityUpdated = row.entityUpdated,
    n.entityDoc = row.entityDoc,
    n.relTypes = row.relTypes,
    n.relLinks = row.relLinks,
    n.relNotes = row.relNotes,
    n.compLinks = row.compLinks
