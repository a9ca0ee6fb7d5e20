package dev.vigil.launcher;

import dev.vigil.launcher.internal.Up;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vigil restart [--config FILE]}: replaces the running daemon by this vigil without touching
 * any task or service worker (D4). The old daemon stops at once and sends its workers nothing; each
 * worker runs on and says hello to the new daemon, which takes it over (S6): no attempt is spent and
 * nothing is started again. Unlike {@code up}'s replacement it needs no idleness, since nothing stops.
 */
@Command(name = "restart", mixinStandardHelpOptions = true, description = {"Replace the running daemon by this "
    + "vigil, leaving every task and service running: the new daemon takes each worker over, no attempt is "
    + "spent and nothing starts again. Use it to apply a new configuration or a new version while work runs.",
    "The new daemon runs --config when given, else the configuration file the old one ran with; a paused daemon "
    + "stays paused. With no daemon running, restart starts one."},
    footer = {"", "Examples:", "  vigil restart", "  vigil restart --config ~/vigil.json"})
final class RestartCmd extends Main.Sub {
  @Option(names = "--config", paramLabel = "FILE", description = "the configuration the new daemon runs (default: "
      + "the one the running daemon runs with; see docs/CONFIG.md)")
  Path config;

  @Option(names = "--any-build", description = "restart even when the running daemon is another build of vigil "
      + "with work running: the new daemon stops those workers and starts their work again")
  boolean anyBuild;

  @Override
  public Integer call() {
    Up.Restarted r = Up.restart(home(), config == null ? null : config.toAbsolutePath(), anyBuild);
    out().println(r.message());
    return 0;
  }
}
