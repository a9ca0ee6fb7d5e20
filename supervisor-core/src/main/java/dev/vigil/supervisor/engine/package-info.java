/** The daemon engine: a threadless step engine (dispatch, handoff, reconcile, recovery, settlement, services, idle shutdown) that acts only through its ports ({@link dev.vigil.supervisor.engine.port}). */
package dev.vigil.supervisor.engine;
