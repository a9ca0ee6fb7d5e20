/** Runnable examples of embedding Vigil (one {@code *Main} each, public API only) and example worker types implementing {@link dev.vigil.worker.WorkerType}. */
package dev.vigil.examples;
