/** Run directories: the reservation lock a worker holds for life, and its identity, payload, busy evidence and durable outcome (C5, Q3). */
package dev.vigil.worker.rundir;
