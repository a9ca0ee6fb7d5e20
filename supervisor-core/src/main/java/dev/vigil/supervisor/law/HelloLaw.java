package dev.vigil.supervisor.law;

import dev.vigil.supervisor.HelloCheck.Expected;
import dev.vigil.supervisor.HelloCheck.Presented;
import dev.vigil.supervisor.HelloCheck.Reason;
import dev.vigil.supervisor.HelloCheck.Result;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * C9, Q3 and S6 for a hello as written: a worker is accepted only when something names it, its
 * token is the one expected (if one is), its build is the one expected (if one is) and its pid is
 * the named process; a refusal names the first of these, in that order, that does not hold.
 */
public final class HelloLaw {
  private HelloLaw() {}

  /** The decision for {@code hello}. */
  public static Result decide(Expected expected, Presented hello) {
    Map<Reason, Boolean> holds = new LinkedHashMap<>();
    holds.put(Reason.NO_IDENTITY, expected.identity() != null);
    holds.put(Reason.WRONG_TOKEN, expected.tokenHash() == null || expected.tokenHash().equals(hello.tokenHash()));
    holds.put(Reason.OTHER_BUILD, expected.build() == null || expected.build().equals(hello.build()));
    holds.put(Reason.NOT_THE_WORKER,
        hello.process().isPresent() && hello.process().get().equals(expected.identity()));
    for (Map.Entry<Reason, Boolean> e : holds.entrySet()) {
      if (!e.getValue()) {
        return new Result.Denied(e.getKey());
      }
    }
    return new Result.Accepted(expected.identity());
  }
}
