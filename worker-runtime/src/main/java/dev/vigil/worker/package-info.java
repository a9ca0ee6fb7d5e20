/** The Worker SPI: a custom worker type implements {@link dev.vigil.worker.WorkerType} and is found by {@link java.util.ServiceLoader}. */
package dev.vigil.worker;
