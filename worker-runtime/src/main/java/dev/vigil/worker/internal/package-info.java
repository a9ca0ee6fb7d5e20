/** Helpers shared by worker-runtime's packages; not an API, may change without notice. */
package dev.vigil.worker.internal;
