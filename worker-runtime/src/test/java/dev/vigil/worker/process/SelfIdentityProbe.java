package dev.vigil.worker.process;

/** Prints this process's identity as {@link Processes#self()} reads it, or the reason it cannot. */
public final class SelfIdentityProbe {
  private SelfIdentityProbe() {}

  public static void main(String[] args) {
    try {
      System.out.println("pgid " + Processes.self().pgid());
    } catch (IllegalStateException e) {
      System.out.println("refused: " + e.getMessage());
    }
  }
}
