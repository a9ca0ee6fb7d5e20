package dev.vigil.examples;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.WorkContext;
import dev.vigil.worker.WorkerType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * An example service type, {@code ticker}: a long-lived worker that appends {@code tick N} to a file
 * every {@code everyMs} (payload {@code {"file": "/tmp/ticks.txt", "everyMs": 200}}) until it is
 * stopped. It shows what a service adds to a task type:
 *
 * <ol>
 *   <li>each tick is declared as work with {@link WorkContext#busy(String)} while it runs, and only
 *       then: between ticks the worker is idle, so an idle shutdown may stop it, and a daemon asking
 *       it to quiesce closes its gate (the next tick waits until the gate reopens);
 *   <li>it waits with {@link WorkContext#awaitStop(long)}, so a stop ends the wait at once;
 *   <li>{@code busy} answers empty once a stop was requested: no new work begins after a stop.
 * </ol>
 */
public final class TickerService implements WorkerType {
  @Override
  public String name() {
    return "ticker";
  }

  @Override
  public Outcome run(WorkContext ctx) throws Exception {
    JsonNode file = ctx.payload().path("file");
    JsonNode every = ctx.payload().path("everyMs");
    if (!file.isTextual() || !every.isIntegralNumber() || every.longValue() < 1) {
      return ctx.permanentFailure("payload needs 'file' (a path) and 'everyMs' (a whole number of ms, at least 1)");
    }
    Path out = Path.of(file.asText());
    long ticks = 0;
    while (!ctx.awaitStop(every.longValue())) {
      Optional<WorkContext.Work> tick = ctx.busy("tick-" + (ticks + 1));
      if (tick.isEmpty()) {
        break;
      }
      try {
        Files.writeString(out, "tick " + (ticks + 1) + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        ticks++;
      } finally {
        tick.get().close();
      }
      ctx.progress("tick " + ticks);
    }
    return ctx.succeeded(ticks + " ticks");
  }
}
