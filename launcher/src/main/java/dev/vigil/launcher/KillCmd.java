package dev.vigil.launcher;

import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vigil kill TICKET|RUN [--retry|--hold]} (Q13): stops a running task now. Its run settles
 * KILLED and spends no attempt; the ticket is cancelled, queued again ({@code --retry}) or held
 * ({@code --hold}). The kill is on record before the first signal, so a daemon that dies in the middle
 * of it is followed by one that finishes it.
 */
@Command(name = "kill", mixinStandardHelpOptions = true, description = "Stop a running task now (TERM, then KILL if it has not exited after a grace period). It spends no "
    + "attempt; the ticket is cancelled, or queued again with --retry, or held with --hold.")
final class KillCmd extends Main.Sub {
  @Parameters(paramLabel = "TICKET|RUN", description = "a ticket (like t-12) or its running run (like t-12.3)")
  String target;

  @Option(names = "--retry", description = "queue the ticket again")
  boolean retry;

  @Option(names = "--hold", description = "hold the ticket")
  boolean hold;

  @Override
  public Integer call() {
    if (retry && hold) {
      throw new IllegalArgumentException("--retry and --hold exclude each other");
    }
    if (!target.matches("t-[0-9]+(\\.[0-9]+)?")) {
      throw new IllegalArgumentException("'" + target + "' is not a ticket or a run (like t-12 or t-12.3)");
    }
    ObjectNode a = Main.args();
    a.put("ticket", target);
    a.put("then", retry ? "retry" : hold ? "hold" : "cancel");
    out().println(Main.call(home(), "kill", a).path("message").asText());
    return 0;
  }
}
