/** Coordination types, decisions and ports: the only path by which tickets, runs and leases change. */
package dev.vigil.coordination;
