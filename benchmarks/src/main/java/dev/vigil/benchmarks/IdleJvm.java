package dev.vigil.benchmarks;

/** A JVM that does nothing: the floor an idle daemon is compared with ({@link DaemonCosts}). */
public final class IdleJvm {
  private IdleJvm() {}

  public static void main(String[] args) throws InterruptedException {
    Thread.sleep(Long.MAX_VALUE);
  }
}
