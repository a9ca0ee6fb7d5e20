/** Pure supervisor laws: restart budget, timeout lattice, work gates, revival, orphans, adoption and versions. */
package dev.vigil.supervisor;
