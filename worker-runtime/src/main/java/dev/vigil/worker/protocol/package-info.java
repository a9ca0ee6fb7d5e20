/** The socket protocol: newline-delimited JSON frames over a Unix domain socket, run-token authentication (C9), a reusable server and client. */
package dev.vigil.worker.protocol;
