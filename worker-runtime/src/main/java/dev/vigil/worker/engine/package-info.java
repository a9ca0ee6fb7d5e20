/** The daemon engine's ports on real parts: worker processes, run directories and the worker socket. */
package dev.vigil.worker.engine;
