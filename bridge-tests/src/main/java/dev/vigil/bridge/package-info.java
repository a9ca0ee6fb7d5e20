/** Scenarios run on the reference models and on the real stack, compared line for line. */
package dev.vigil.bridge;
