/** The Worker SPI and the real worker processes behind it. */
package dev.vigil.worker;
