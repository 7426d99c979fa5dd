// One record per project UUID (list_projects).
CREATE CONSTRAINT project_key IF NOT EXISTS
FOR (p:Project) REQUIRE p.id IS UNIQUE
