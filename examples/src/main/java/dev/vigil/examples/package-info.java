/** Example custom worker types: each implements {@link dev.vigil.worker.WorkerType} and is registered for {@link java.util.ServiceLoader}. */
package dev.vigil.examples;
