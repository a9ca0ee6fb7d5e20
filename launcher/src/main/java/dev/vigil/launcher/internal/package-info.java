/** The launcher's parts behind {@code Vigil} and the CLI: configuration, home, status file, wiring. */
package dev.vigil.launcher.internal;
