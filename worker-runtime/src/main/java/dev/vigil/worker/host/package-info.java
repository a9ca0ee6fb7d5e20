/** The worker host: the small JVM that holds a run's reservation, runs a worker type, answers quiesce and outlives a lost supervisor for a bounded window (Q3, S3, S4, S5). */
package dev.vigil.worker.host;
