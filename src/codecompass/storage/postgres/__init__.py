"""The server backend's metadata, lexical index, graph, cache and audit in PostgreSQL
(psycopg 3 with a connection pool), shared by the workspaces of one database."""
