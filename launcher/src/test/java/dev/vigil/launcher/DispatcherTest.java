package dev.vigil.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vigil.supervisor.engine.Command;
import dev.vigil.supervisor.engine.Reply;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The event threads read the stream only when the daemon may have written to it. The daemon here is
 * a function that answers as the real one does and then tells the waker of its reply, as
 * {@code Daemon.call} does: a real daemon cannot show how many reads the threads asked for.
 */
class DispatcherTest {
  @Test
  void theCursorsOwnReads_wakeNoCursor_soAnIdleVigilReadsNothing() throws Exception {
    AtomicInteger reads = new AtomicInteger();
    Dispatcher.Waker waker = new Dispatcher.Waker();
    Function<Command, Reply> daemon = c -> {
      Reply r = new Reply.EventList(List.of());
      reads.incrementAndGet();
      waker.replied(r);
      return r;
    };
    Dispatcher d = new Dispatcher(daemon, 0);
    waker.to(d);
    d.start();
    try (Subscription s = d.listen(0, e -> { })) {
      settlesAt(reads, 2, "the completions' first read and the listener's");
      waker.engineEvent();
      settlesAt(reads, 4, "one read each after an engine event");
      waker.replied(new Reply.Acknowledged("paused"));
      settlesAt(reads, 6, "one read each after a command that may have written");
      waker.replied(new Reply.TicketList(List.of()));
      waker.replied(new Reply.Denied("no"));
      settlesAt(reads, 6, "a read's or a refusal's reply wakes nothing");
    } finally {
      d.stop();
    }
  }

  /** Waits until {@code n} reads happened, then checks that no more come while nothing wakes the threads. */
  private static void settlesAt(AtomicInteger reads, int n, String what) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (reads.get() < n && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    Thread.sleep(300);
    assertEquals(n, reads.get(), what);
  }
}
