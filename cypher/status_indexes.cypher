// Every index and constraint-backed index of the database, with its state.
SHOW INDEXES
YIELD name, type, entityType, labelsOrTypes, properties, state, populationPercent, options
RETURN name, type, entityType, labelsOrTypes, properties, state, populationPercent, options
ORDER BY name
