// Takes or renews the lease $name of a project for $holder for $ttl_ms
// (neo4jstore/lease.go): granted when nobody holds it, when $holder already
// does, or when the holder's time ran out. Times are the server's clock
// (timestamp(), ms), so hosts with skewed clocks agree. MERGE locks the
// lease node, and the first SET takes the node's write lock before the
// holder is read, so of two processes asking at once exactly one gets it.
MERGE (l:Lease {project: $project, name: $name})
SET l.asked = timestamp()
WITH l, l.holder IS NULL OR l.holder = $holder OR l.expires < timestamp() AS free
SET l.holder = CASE WHEN free THEN $holder ELSE l.holder END,
    l.expires = CASE WHEN free THEN timestamp() + $ttl_ms ELSE l.expires END
RETURN free AS held, l.holder AS holder, l.expires - timestamp() AS remaining_ms
