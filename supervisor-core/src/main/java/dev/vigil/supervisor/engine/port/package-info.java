/** The ports the daemon engine acts through (processes, run directories, worker channel, status board, journal) and the values only they carry. */
package dev.vigil.supervisor.engine.port;
