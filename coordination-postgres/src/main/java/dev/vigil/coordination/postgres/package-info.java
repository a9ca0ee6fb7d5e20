/**
 * The Coordination and Store ports on a PostgreSQL server, shared by the daemons of several hosts
 * ({@link dev.vigil.coordination.postgres.PostgresCoordination#open} is the one entry point).
 */
package dev.vigil.coordination.postgres;
