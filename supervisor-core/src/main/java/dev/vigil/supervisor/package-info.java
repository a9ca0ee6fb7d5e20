/** Pure supervisor laws: restart budget, timeout lattice, work gates, revival, orphans, adoption, versions, stop escalation, hello checks and the verdict of an ended run. */
package dev.vigil.supervisor;
