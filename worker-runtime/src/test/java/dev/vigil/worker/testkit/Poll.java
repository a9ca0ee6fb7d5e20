package dev.vigil.worker.testkit;

import java.util.function.BooleanSupplier;

/** Waits for process and socket events by polling, with generous timeouts; never asserts speed. */
public final class Poll {
  /** Default patience for a process event, ms. */
  public static final long PATIENCE_MS = 20_000;

  private Poll() {}

  /** Polls {@code condition} every 10 ms until it holds; fails naming {@code what} after {@code timeoutMs}. */
  public static void until(String what, long timeoutMs, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeoutMs * 1_000_000;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline >= 0) {
        throw new AssertionError("timed out after " + timeoutMs + " ms waiting until " + what);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting until " + what, e);
      }
    }
  }

  /** {@link #until(String, long, BooleanSupplier)} with {@link #PATIENCE_MS}. */
  public static void until(String what, BooleanSupplier condition) {
    until(what, PATIENCE_MS, condition);
  }
}
