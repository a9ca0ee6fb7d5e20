/** The vigil command line and the embedding entry point. */
package dev.vigil.launcher;
