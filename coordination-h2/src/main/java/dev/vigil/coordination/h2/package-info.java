/**
 * The Coordination and Store ports on an embedded H2 file database, durable across {@code kill -9}
 * ({@link dev.vigil.coordination.h2.H2Coordination#open} is the one entry point).
 */
package dev.vigil.coordination.h2;
