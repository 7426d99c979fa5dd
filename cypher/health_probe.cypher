// The circuit breaker's probe: does the server answer at all?
RETURN 1 AS ok
