package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.Replacement.Client;
import dev.vigil.supervisor.Replacement.Daemon;
import dev.vigil.supervisor.Replacement.Verdict;
import dev.vigil.supervisor.law.SupervisorInvariants;
import dev.vigil.supervisor.law.VersionLaw;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ReplacementTest {
  private static final Set<String> IDLE = Set.of(Replacement.IDLE_SHUTDOWN);

  private static Client client(String version, String build, int protocol, boolean interactive) {
    return new Client(Version.parse(version), build, protocol, interactive);
  }

  private static Daemon daemon(String version, String build, int protocol, Set<String> caps) {
    return new Daemon(Version.parse(version), build, protocol, caps);
  }

  @Test
  void S9_anOlderClientUsesTheDaemonWhenTheProtocolAgreesAndSaysExactlyWhy() {
    Verdict v = Replacement.decide(client("1.2.0", "b1", 3, true), Optional.of(daemon("1.3.0", "b2", 3, IDLE)));
    assertEquals(new Verdict.UseAndTell("this vigil (v1.2.0) is older than the running daemon (v1.3.0): update or run vigil down"), v);
  }

  @Test
  void S9_anOlderClientWhoseProtocolDoesNotAgreeStopsWithThatMessage() {
    Verdict v = Replacement.decide(client("1.2.0-dev", "b1", 2, true), Optional.of(daemon("1.2.0", "b2", 3, IDLE)));
    assertEquals(new Verdict.Refuse("this vigil (v1.2.0-dev) is older than the running daemon (v1.2.0): update or run vigil down"), v);
  }

  @Test
  void S9_whenNoDaemonListensTheClientLaunchesItsOwnBuild() {
    assertEquals(new Verdict.Launch(), Replacement.decide(client("0.9.9-main.46", "b0", 1, false), Optional.empty()));
  }

  @Test
  void S8_onlyAnInteractiveStartReplacesALowerVersionAdvertisingIdleShutdown() {
    Daemon old = daemon("0.9.9-main.46", "b0", 3, IDLE);
    assertEquals(new Verdict.ReplaceIfIdle(), Replacement.decide(client("0.9.9", "b1", 3, true), Optional.of(old)));
    assertTrue(Replacement.decide(client("0.9.9", "b1", 3, false), Optional.of(old)) instanceof Verdict.UseAndTell,
        "a background client never replaces");
    assertTrue(Replacement.decide(client("0.9.9", "b1", 3, true), Optional.of(daemon("0.9.9-main.46", "b0", 3, Set.of())))
        instanceof Verdict.UseAndTell, "no idle_shutdown, no replacement");
  }

  @Test
  void S8_aClientNeverReplacesAnotherBuildOfTheSameVersion() {
    Verdict v = Replacement.decide(client("1.2.0", "b1", 3, true), Optional.of(daemon("1.2.0", "b2", 3, IDLE)));
    assertEquals(new Verdict.UseAndTell("this vigil (v1.2.0, build b1) is another build of the running daemon's "
        + "version (v1.2.0, build b2): run vigil down to switch builds"), v);
    assertEquals(new Verdict.Use(), Replacement.decide(client("1.2.0", "b2", 3, true),
        Optional.of(daemon("1.2.0", "b2", 3, IDLE))));
  }

  @Test
  void S9_anOlderClientNeverReplaces_andUsesOrStopsWithTheExactMessage() {
    Props.Coverage cov = new Props.Coverage("S9 older clients", Verdict.UseAndTell.class, Verdict.Refuse.class,
        "interactive", "background");
    Props.forSeeds(3_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      Version a = Version.parse(VersionTest.randomVersion(r));
      Version b = Version.parse(VersionTest.randomVersion(r));
      if (a.compareTo(b) == 0) {
        return;
      }
      Version older = a.compareTo(b) < 0 ? a : b;
      Version newer = a.compareTo(b) < 0 ? b : a;
      Client c = new Client(older, "b-old", 1 + r.nextInt(2), r.nextBoolean());
      Daemon d = new Daemon(newer, "b-new", 1 + r.nextInt(2), r.nextBoolean() ? IDLE : Set.of());
      String ctx = "seed " + seed + ", " + c + ", " + d;
      Verdict v = Replacement.decide(c, Optional.of(d));
      SupervisorInvariants.s9OlderClientTold(c, d, v, ctx);
      assertEquals("this vigil (v" + older + ") is older than the running daemon (v" + newer
          + "): update or run vigil down", Replacement.olderMessage(older, newer), ctx);
      cov.saw(v);
      cov.label(c.interactive() ? "interactive" : "background");
    });
    cov.assertComplete();
  }

  @Test
  void S9_anAttachedClientRelaunchesItsOwnBuildOnlyWhenNoDaemonListens_andNeverReplacesAnotherClientsDaemon() {
    Props.Coverage cov = new Props.Coverage("S9 relaunch", "relaunched own build", "kept another client's daemon",
        "kept a lower version");
    Props.forSeeds(3_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      List<String[]> builds = randomBuilds(r, 1 + r.nextInt(4));
      Client attached = new Client(randomClient(r, builds).version(), "b-attached", 1 + r.nextInt(2), false);
      Optional<Daemon> daemon = Optional.empty();
      for (int i = 0; i < 1 + r.nextInt(12); i++) {
        String ctx = "seed " + seed + ", event " + i + ", daemon " + daemon + ", attached " + attached;
        switch (r.nextInt(3)) {
          case 0 -> daemon = Optional.empty();
          case 1 -> {
            Client other = randomClient(r, builds);
            daemon = Optional.of(new Daemon(other.version(), other.build(), other.protocol(), IDLE));
          }
          default -> {
            Verdict v = Replacement.decide(attached, daemon);
            if (daemon.isEmpty()) {
              assertEquals(new Verdict.Launch(), v, "S9: relaunch a lost supervisor of its own build; " + ctx);
              daemon = Optional.of(new Daemon(attached.version(), attached.build(), attached.protocol(), IDLE));
              cov.label("relaunched own build");
            } else {
              assertTrue(!(v instanceof Verdict.ReplaceIfIdle) && !(v instanceof Verdict.Launch),
                  "S9: never replaces a daemon another client started; " + ctx + " -> " + v);
              cov.label(daemon.get().version().compareTo(attached.version()) < 0 ? "kept a lower version"
                  : "kept another client's daemon");
            }
          }
        }
      }
    });
    cov.assertComplete();
  }

  private static Client randomClient(SplittableRandom r, List<String[]> builds) {
    String[] b = builds.get(r.nextInt(builds.size()));
    return new Client(Version.parse(b[0]), b[1], Integer.parseInt(b[2]), r.nextBoolean());
  }

  /** k builds: version texts (shared series likely), build ids, protocol numbers. */
  private static List<String[]> randomBuilds(SplittableRandom r, int k) {
    List<String[]> builds = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      builds.add(new String[] {VersionTest.randomVersion(r), "b" + i, Integer.toString(1 + r.nextInt(2))});
    }
    return builds;
  }

  @Test
  void S8_verdictAgreesWithLawModel() {
    Props.Coverage cov = new Props.Coverage("S8/S9 verdicts", Verdict.Launch.class, Verdict.Use.class,
        Verdict.UseAndTell.class, Verdict.ReplaceIfIdle.class, Verdict.Refuse.class, "older client told");
    Props.forSeeds(5_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      List<String[]> builds = randomBuilds(r, 1 + r.nextInt(4));
      Client c = randomClient(r, builds);
      Optional<Daemon> d = r.nextInt(8) == 0 ? Optional.empty() : Optional.of(new Daemon(randomClient(r, builds).version(),
          builds.get(r.nextInt(builds.size()))[1], 1 + r.nextInt(2), r.nextInt(4) == 0 ? Set.of() : IDLE));
      String ctx = "seed " + seed + ", " + c + ", " + d;
      Verdict v = Replacement.decide(c, d);
      VersionLaw.Expected e = VersionLaw.expect(c, d);
      assertEquals(e.kind(), v.getClass(), ctx);
      if (e.message().isPresent()) {
        String m = v instanceof Verdict.UseAndTell u ? u.message() : ((Verdict.Refuse) v).message();
        assertEquals(e.message().get(), m, ctx);
        cov.label("older client told");
      }
      SupervisorInvariants.s8OnlyInteractiveReplacesLower(c, d, v, ctx);
      d.ifPresent(daemon -> SupervisorInvariants.s9OlderClientTold(c, daemon, v, ctx));
      cov.saw(v);
    });
    cov.assertComplete();
  }

  @Test
  void S8_kBuildsCauseAtMostKMinusOneReplacements_andTheDaemonNeverGoesBack() {
    Props.Coverage cov = new Props.Coverage("S8 sequences", "replaced", "busy, not replaced", "k − 1 replacements reached");
    Props.forSeeds(3_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      int k = 1 + r.nextInt(5);
      List<String[]> builds = randomBuilds(r, k);
      Optional<Daemon> daemon = Optional.empty();
      int replacements = 0;
      Set<String> started = new HashSet<>();
      for (int i = 0; i < 3 * k + r.nextInt(10); i++) {
        Client c = randomClient(r, builds);
        started.add(c.build());
        String ctx = "seed " + seed + ", start " + i + " by " + c + ", daemon " + daemon + ", builds " + k;
        Verdict v = Replacement.decide(c, daemon);
        SupervisorInvariants.s8OnlyInteractiveReplacesLower(c, daemon, v, ctx);
        if (v instanceof Verdict.Launch) {
          daemon = Optional.of(new Daemon(c.version(), c.build(), c.protocol(), IDLE));
        } else if (v instanceof Verdict.ReplaceIfIdle) {
          if (r.nextInt(4) == 0) {
            cov.label("busy, not replaced");
            continue;
          }
          Daemon next = new Daemon(c.version(), c.build(), c.protocol(), IDLE);
          SupervisorInvariants.s8NeverDowngrades(daemon.orElseThrow().version(), next.version(), ctx);
          daemon = Optional.of(next);
          replacements++;
          cov.label("replaced");
        } else if (!(v instanceof Verdict.Use || v instanceof Verdict.UseAndTell || v instanceof Verdict.Refuse)) {
          throw new AssertionError(v);
        }
        SupervisorInvariants.s8ReplacementsBounded(k, replacements, ctx);
        SupervisorInvariants.s8ReplacementsBounded(started.size(), replacements, ctx);
      }
      if (k > 1 && replacements == k - 1) {
        cov.label("k − 1 replacements reached");
      }
    });
    cov.assertComplete();
  }
}
