/** The Coordination and Store ports on an embedded H2 file database. */
package dev.vigil.coordination.h2;
