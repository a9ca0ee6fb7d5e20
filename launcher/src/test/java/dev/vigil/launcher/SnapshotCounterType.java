package dev.vigil.launcher;

import dev.vigil.worker.Outcome;
import dev.vigil.worker.WorkContext;
import dev.vigil.worker.WorkerType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A service type for the transcript tests, {@code snapshot-counter}: it counts, printing {@code count N} on stdout
 * every 100 ms and saving N as its snapshot ({@code counter.snapshot} in its run directory) after each line. A
 * worker that finds a snapshot starts over it and says so ({@link WorkContext#restored}), as {@code counter-N}.
 */
public final class SnapshotCounterType implements WorkerType {
  @Override
  public String name() {
    return "snapshot-counter";
  }

  @Override
  public Outcome run(WorkContext ctx) throws Exception {
    Path snapshot = ctx.runDirectory().resolve("counter.snapshot");
    long n = 0;
    if (Files.exists(snapshot)) {
      n = Long.parseLong(Files.readString(snapshot).trim());
      ctx.restored("counter-" + n);
      System.out.println("starting over counter-" + n);
    }
    while (!ctx.awaitStop(100)) {
      n++;
      System.out.println("count " + n);
      System.out.flush();
      Path tmp = snapshot.resolveSibling("counter.snapshot.tmp");
      Files.writeString(tmp, Long.toString(n));
      Files.move(tmp, snapshot, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
    return ctx.succeeded(n + " counted");
  }
}
