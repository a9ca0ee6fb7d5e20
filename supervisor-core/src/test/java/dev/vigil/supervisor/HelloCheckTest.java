package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.supervisor.HelloCheck.Expected;
import dev.vigil.supervisor.HelloCheck.Presented;
import dev.vigil.supervisor.HelloCheck.Reason;
import dev.vigil.supervisor.HelloCheck.Result;
import dev.vigil.supervisor.law.HelloLaw;
import dev.vigil.supervisor.law.SupervisorInvariants;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HelloCheckTest {
  private static final ProcessIdentity WORKER = new ProcessIdentity("boot-1", 4_242, 90_000, 4_242);
  /** The same pid, started later: the worker's pid reused by another process. */
  private static final ProcessIdentity REUSED = new ProcessIdentity("boot-1", 4_242, 95_000, 4_242);
  private static final ProcessIdentity OTHER = new ProcessIdentity("boot-1", 5_151, 91_000, 5_151);
  private static final ProcessIdentity OTHER_BOOT = new ProcessIdentity("boot-2", 4_242, 90_000, 4_242);
  private static final String TOKEN = "ab".repeat(32);
  private static final String TOKEN_LAST_DIGIT = "ab".repeat(31) + "ac";
  private static final String TOKEN_FIRST_DIGIT = "bb" + "ab".repeat(31);

  @Test
  void C9_Q3_S6_helloCheckAgreesWithLawModel() {
    Props.Coverage cov = new Props.Coverage("hello check model agreement", Result.Accepted.class,
        "denied " + Reason.NO_IDENTITY, "denied " + Reason.WRONG_TOKEN, "denied " + Reason.OTHER_BUILD,
        "denied " + Reason.NOT_THE_WORKER, "accepted without a token to check", "accepted without a build to check",
        "token differing only in its last digit refused", "reused pid refused", "same pid on another boot refused",
        "no live process refused");
    Props.forSeeds(3_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      Expected expected = new Expected(Props.pick(r, WORKER, WORKER, WORKER, null),
          Props.pick(r, TOKEN, TOKEN, null), Props.pick(r, "b-42", "b-42", null));
      Presented hello = new Presented(Props.pick(r, TOKEN, TOKEN, TOKEN, TOKEN_LAST_DIGIT, TOKEN_FIRST_DIGIT),
          Props.pick(r, "b-42", "b-42", "b-41"),
          Props.pick(r, Optional.of(WORKER), Optional.of(WORKER), Optional.of(REUSED), Optional.of(OTHER),
              Optional.of(OTHER_BOOT), Optional.empty()));
      String ctx = "seed " + seed + ", " + expected + ", " + hello;
      Result result = HelloCheck.check(expected, hello);
      assertEquals(HelloLaw.decide(expected, hello), result, ctx);
      SupervisorInvariants.c9HelloFromTheWorker(expected, hello, result, ctx);
      if (result instanceof Result.Accepted) {
        cov.saw(result);
        if (expected.tokenHash() == null) {
          cov.label("accepted without a token to check");
        }
        if (expected.build() == null) {
          cov.label("accepted without a build to check");
        }
      } else if (result instanceof Result.Denied d) {
        cov.label("denied " + d.reason());
        if (d.reason() == Reason.WRONG_TOKEN && hello.tokenHash().equals(TOKEN_LAST_DIGIT)) {
          cov.label("token differing only in its last digit refused");
        }
        if (d.reason() == Reason.NOT_THE_WORKER) {
          cov.label(hello.process().isEmpty() ? "no live process refused"
              : hello.process().get().equals(REUSED) ? "reused pid refused"
              : hello.process().get().equals(OTHER_BOOT) ? "same pid on another boot refused" : "another process refused");
        }
      } else {
        throw new AssertionError(result);
      }
    });
    cov.assertComplete();
  }

  @Test
  void C9_theLaunchedWorkerWithItsTokenBuildAndPidIsAccepted() {
    assertEquals(new Result.Accepted(WORKER),
        HelloCheck.check(new Expected(WORKER, TOKEN, "b-42"), new Presented(TOKEN, "b-42", Optional.of(WORKER))));
  }

  @Test
  void C9_aWrongTokenIsRefusedBeforeAnythingElseIsLookedAt() {
    assertEquals(new Result.Denied(Reason.WRONG_TOKEN), HelloCheck.check(new Expected(WORKER, TOKEN, "b-42"),
        new Presented(TOKEN_LAST_DIGIT, "b-41", Optional.empty())));
  }

  @Test
  void S6_anotherBuildIsRefusedWhereTheBuildIsChecked_andLeftToAdoptionWhereItIsNot() {
    assertEquals(new Result.Denied(Reason.OTHER_BUILD), HelloCheck.check(new Expected(WORKER, TOKEN, "b-42"),
        new Presented(TOKEN, "b-41", Optional.of(WORKER))));
    assertEquals(new Result.Accepted(WORKER), HelloCheck.check(new Expected(WORKER, TOKEN, null),
        new Presented(TOKEN, "b-41", Optional.of(WORKER))));
  }

  @Test
  void C5_aReusedPidIsAnotherProcess() {
    assertEquals(new Result.Denied(Reason.NOT_THE_WORKER), HelloCheck.check(new Expected(WORKER, null, null),
        new Presented(TOKEN, "b-42", Optional.of(REUSED))));
  }

  @Test
  void aWorkerNothingNamesIsRefused() {
    assertEquals(new Result.Denied(Reason.NO_IDENTITY), HelloCheck.check(new Expected(null, null, null),
        new Presented(TOKEN, "b-42", Optional.of(WORKER))));
  }

  @Test
  void C9_tokensCompareEqualOnlyWhenEveryDigitIs() {
    assertTrue(HelloCheck.sameToken(TOKEN, "ab".repeat(32)));
    assertFalse(HelloCheck.sameToken(TOKEN, TOKEN_LAST_DIGIT));
    assertFalse(HelloCheck.sameToken(TOKEN, TOKEN_FIRST_DIGIT));
    assertFalse(HelloCheck.sameToken(TOKEN, null));
    assertFalse(HelloCheck.sameToken(null, null));
  }
}
