/** The Worker SPI: a custom worker type implements {@link dev.vigil.worker.WorkerType}, and a configuration declares its class and classpath. */
package dev.vigil.worker;
