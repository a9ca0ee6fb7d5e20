/** The daemon engine: a threadless step engine (scheduler, reconciler, recovery, services, idle shutdown) that acts only through its ports. */
package dev.vigil.supervisor.engine;
