/** Real worker processes: launch in their own session, identity from /proc, identity-gated group signals, exit observation (C5). */
package dev.vigil.worker.process;
