/** Example custom worker types: each implements {@link dev.vigil.worker.WorkerType} and is declared by class in a configuration ({@code examples/vigil.json}). */
package dev.vigil.examples;
