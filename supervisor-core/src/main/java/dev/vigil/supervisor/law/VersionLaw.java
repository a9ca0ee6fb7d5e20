package dev.vigil.supervisor.law;

import dev.vigil.supervisor.Replacement;
import dev.vigil.supervisor.Replacement.Client;
import dev.vigil.supervisor.Replacement.Daemon;
import dev.vigil.supervisor.Replacement.Verdict;
import java.math.BigInteger;
import java.util.Optional;

/**
 * S8 and S9 as written. {@link #compare(String, String)} orders version texts by the semver
 * precedence rules, working on the text itself with unbounded numbers; {@link #expect} restates
 * who may replace whom.
 */
public final class VersionLaw {
  private VersionLaw() {}

  /** The semver precedence of two version texts (an optional leading {@code v}; build metadata ignored). */
  public static int compare(String a, String b) {
    String[] x = strip(a).split("-", 2);
    String[] y = strip(b).split("-", 2);
    String[] xc = x[0].split("\\.");
    String[] yc = y[0].split("\\.");
    for (int i = 0; i < 3; i++) {
      int c = new BigInteger(xc[i]).compareTo(new BigInteger(yc[i]));
      if (c != 0) {
        return Integer.signum(c);
      }
    }
    boolean xRelease = x.length == 1;
    boolean yRelease = y.length == 1;
    if (xRelease || yRelease) {
      // a pre-release is below the release of its series
      return xRelease == yRelease ? 0 : xRelease ? 1 : -1;
    }
    String[] xp = x[1].split("\\.");
    String[] yp = y[1].split("\\.");
    for (int i = 0; i < xp.length && i < yp.length; i++) {
      boolean xn = xp[i].chars().allMatch(Character::isDigit);
      boolean yn = yp[i].chars().allMatch(Character::isDigit);
      int c;
      if (xn && yn) {
        c = new BigInteger(xp[i]).compareTo(new BigInteger(yp[i]));
      } else if (xn || yn) {
        c = xn ? -1 : 1;
      } else {
        c = xp[i].compareTo(yp[i]);
      }
      if (c != 0) {
        return Integer.signum(c);
      }
    }
    return Integer.compare(xp.length, yp.length);
  }

  private static String strip(String text) {
    String t = text.startsWith("v") ? text.substring(1) : text;
    int plus = t.indexOf('+');
    return plus < 0 ? t : t.substring(0, plus);
  }

  /**
   * What the law expects a client to do.
   *
   * @param kind    the verdict's variant
   * @param message the exact message when the law gives it (a client older than the daemon)
   */
  public record Expected(Class<? extends Verdict> kind, Optional<String> message) {}

  /** Restates S8–S9 for one client meeting one daemon (or none). */
  public static Expected expect(Client client, Optional<Daemon> daemon) {
    if (daemon.isEmpty()) {
      // a client relaunches / starts its own build when no daemon listens
      return new Expected(Verdict.Launch.class, Optional.empty());
    }
    Daemon d = daemon.get();
    int c = compare(client.version().toString(), d.version().toString());
    boolean agree = client.protocol() == d.protocol();
    // only an interactive start replaces, only a lower version, only via idle shutdown
    if (client.interactive() && c > 0 && d.capabilities().contains(Replacement.IDLE_SHUTDOWN)) {
      return new Expected(Verdict.ReplaceIfIdle.class, Optional.empty());
    }
    if (c == 0 && client.build().equals(d.build()) && agree) {
      return new Expected(Verdict.Use.class, Optional.empty());
    }
    Optional<String> message = c < 0
        ? Optional.of("this vigil (v" + client.version() + ") is older than the running daemon (v" + d.version()
            + "): update or run vigil down")
        : Optional.empty();
    return new Expected(agree ? Verdict.UseAndTell.class : Verdict.Refuse.class, message);
  }
}
