package dev.vigil.bridge;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded scenarios, written in the scenario language so that a failing one can be read and kept
 * as a named scenario. A scenario is a few phases; each submits some tickets and then does one of:
 * wait until all are done; kill the daemon while its long runs work (and boot again, sometimes on a
 * new build); close it with SIGTERM; kill a long run's worker host; park a long run and unpark it.
 *
 * <p>Generated steps keep every decision they look at apart from the steps around it (long runs
 * work until the scenario tells them to end, short ones finish before the next act), so that the
 * real stack's timing cannot change what its transcript says: the generator varies what happens,
 * not how close things come.
 */
final class GeneratedScenarios {
  private static final String[] SHORT = {"exit 0 after 300ms", "exit 0 after 600ms", "exit 1 after 300ms",
      "exit 3 after 500ms", "stall 400ms after 300ms", "no-outcome after 400ms", "crash after 300ms",
      "exit 0 after 1s"};

  private GeneratedScenarios() {}

  /** The scenario of {@code seed}, with at most {@code phases} phases. */
  static Scenario generate(long seed, int phases) {
    return Scenario.parse("generated_" + seed, text(seed, phases));
  }

  /** The scenario's text. */
  static List<String> text(long seed, int maxPhases) {
    SplittableRandom r = new SplittableRandom(seed);
    List<String> out = new ArrayList<>();
    out.add("# generated, seed " + seed);
    out.add("lanes default=2 one=1");
    boolean service = r.nextInt(3) == 0;
    if (service) {
      out.add("service idx");
      out.add("  launch *: serve");
    }
    String build = "b1";
    out.add("boot");
    if (service) {
      out.add("await service idx up");
    }
    int phases = 1 + r.nextInt(maxPhases);
    int ticket = 0;
    List<String> labels = new ArrayList<>();
    for (int p = 0; p < phases; p++) {
      int kind = r.nextInt(6);
      List<String> mine = new ArrayList<>();
      if (kind == 0) {
        // short tickets of any lane, then wait for all of them
        for (int k = 1 + r.nextInt(3); k > 0; k--) {
          String l = "t" + (++ticket);
          submit(out, r, l, r.nextInt(3) == 0 ? "one" : "default", false);
          mine.add(l);
        }
        awaitDone(out, mine);
      } else {
        // one or two long runs in the default lane (two slots), each working before the act
        for (int k = 1 + r.nextInt(2); k > 0; k--) {
          String l = "t" + (++ticket);
          submit(out, r, l, "default", true);
          mine.add(l);
        }
        for (String l : mine) {
          out.add("await " + l + " working");
        }
        String target = mine.get(r.nextInt(mine.size()));
        List<String> stillWorking = new ArrayList<>(mine);
        switch (kind) {
          case 1, 2 -> {
            out.add("crash");
            if (r.nextBoolean()) {
              out.add("wait " + (200 + r.nextInt(1_200)) + "ms");
            }
            if (kind == 2) {
              build = build.equals("b1") ? "b2" : "b1";
              stillWorking.clear(); // another build's workers are stopped as lost workers
            }
            out.add("boot " + build);
          }
          case 3 -> {
            out.add("sigterm");
            out.add("boot " + build);
          }
          case 4 -> {
            out.add("kill worker " + target);
            // the daemon learns of its child's death at once on the real stack, and a retry follows its
            // backoff: let the ticket finish (its later runs are short) before the next act, so that none
            // of its decisions can fall into another part on one runner only
            out.add("await " + target + " done within 40s");
            stillWorking.remove(target);
          }
          case 5 -> {
            out.add("park " + target);
            out.add("await " + target + " READY within 20s");
            out.add("show " + target);
            stillWorking.remove(target);
          }
          default -> throw new AssertionError(kind);
        }
        if (service && kind <= 3) {
          // a new daemon takes the service over when its worker calls back, which on the real stack
          // comes after a randomised reconnect delay: wait for it here, so that it cannot fall into a
          // later part on one runner only
          out.add("await service idx up");
        }
        // every run working again (after a new daemon: re-adopted and told to go, which follows its worker's
        // randomised reconnect) before any is told to end, so that no go can fall into a later part
        for (String l : stillWorking) {
          out.add("await " + l + " working");
        }
        for (String l : stillWorking) {
          out.add("tell " + l);
        }
        if (kind == 5) {
          // an unpark is claimed at once on the real stack: only after everything else settled, so that
          // its claim cannot fall into an earlier part on one runner only
          awaitDone(out, stillWorking);
          out.add("unpark " + target);
        }
        awaitDone(out, mine);
      }
      labels.addAll(mine);
      if (r.nextBoolean()) {
        out.add("show " + labels.get(r.nextInt(labels.size())));
      }
    }
    if (service) {
      out.add("await service idx up");
    }
    return out;
  }

  private static void submit(List<String> out, SplittableRandom r, String label, String lane, boolean long1) {
    int attempts = 1 + r.nextInt(3);
    out.add("submit " + label + " lane=" + lane + " attempts=" + attempts + (r.nextInt(4) == 0 ? " priority=" + r.nextInt(3)
        : ""));
    int runs = 1 + r.nextInt(3);
    for (int n = 1; n <= runs; n++) {
      String b = n == 1 && long1 ? "exit " + (r.nextInt(4) == 0 ? 1 : 0) + " until told" : SHORT[r.nextInt(SHORT.length)];
      out.add("  " + n + ": " + b);
    }
    out.add("  *: exit 0 after 300ms");
  }

  private static void awaitDone(List<String> out, List<String> labels) {
    for (String l : labels) {
      out.add("await " + l + " done within 40s");
    }
  }
}
