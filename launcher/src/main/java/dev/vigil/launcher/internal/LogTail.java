package dev.vigil.launcher.internal;

import dev.vigil.supervisor.ByteSizes;
import dev.vigil.worker.rundir.OutputFile;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Follows a worker directory's {@code stdout.log} and {@code stderr.log}: each call copies only the
 * bytes written since the previous one. A log that does not exist yet reads as empty. Where the
 * worker host cut a log to its bound before this copy reached it, the copy has the marker line
 * ({@code … 4194304 bytes dropped …}) in place of the dropped bytes, and a {@code vigil:} line on
 * stderr says so, once per stream. Not thread-safe: one follower per instance.
 */
public final class LogTail {
  private final String name;
  private final OutputFile.Reader out;
  private final OutputFile.Reader err;
  private boolean outSaid;
  private boolean errSaid;

  public LogTail(Path workerDir) {
    this.name = workerDir.getFileName().toString();
    this.out = OutputFile.at(workerDir.resolve("stdout.log")).reader();
    this.err = OutputFile.at(workerDir.resolve("stderr.log")).reader();
  }

  /** Copies what both logs gained since the last call to {@code toOut} and {@code toErr}. */
  public void copyNew(OutputStream toOut, OutputStream toErr) throws IOException {
    OutputFile.Copied o = out.copyNew(toOut);
    if (o.droppedBytes() > 0 && !outSaid) {
      outSaid = true;
      note(toErr, "stdout", o);
    }
    OutputFile.Copied e = err.copyNew(toErr);
    if (e.droppedBytes() > 0 && !errSaid) {
      errSaid = true;
      note(toErr, "stderr", e);
    }
  }

  /** {@code vigil: t-4.1 wrote more stdout than its lane keeps (1 MiB): 4.0 MiB in the middle were dropped}. */
  private void note(OutputStream toErr, String stream, OutputFile.Copied c) throws IOException {
    String kept = c.record().map(r -> " (" + ByteSizes.describe(r.maxBytes()) + ": the first "
        + ByteSizes.describe(r.layout().head()) + " and the last " + ByteSizes.describe(r.maxBytes() - r.layout().head())
        + ")").orElse("");
    String line = "vigil: " + name + " wrote more " + stream + " than is kept" + kept + ": "
        + ByteSizes.describe(c.droppedBytes()) + " (" + c.droppedBytes() + " bytes) in between were dropped\n";
    if (toErr instanceof PrintStream p) {
      p.print(line);
      p.flush();
    } else {
      toErr.write(line.getBytes(StandardCharsets.UTF_8));
      toErr.flush();
    }
  }
}
