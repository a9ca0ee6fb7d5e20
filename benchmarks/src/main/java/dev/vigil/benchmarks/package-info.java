/** Benchmarks and load drivers of Vigil, with peers measured side by side (docs/PERFORMANCE.md). */
package dev.vigil.benchmarks;
