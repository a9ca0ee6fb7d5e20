package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.WorkSet.Kind;
import dev.vigil.supervisor.law.WorkLaw;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class WorkSetTest {
  @Test
  void S3_everyKindIsWorkAndAWithdrawnInputIsNot() {
    for (Kind k : Kind.values()) {
      assertTrue(WorkSet.EMPTY.plus(k, "x").isBusy(), k.toString());
    }
    WorkSet queued = WorkSet.EMPTY.plus(Kind.QUEUED_INPUT, "in-1");
    assertTrue(queued.isBusy());
    assertTrue(queued.withdraw("in-1").isIdle());
    assertEquals(WorkSet.EMPTY, queued.withdraw("in-1"));
    WorkSet run = WorkSet.EMPTY.plus(Kind.RUN, "in-1");
    assertTrue(run.withdraw("in-1").isBusy(), "withdrawing an input leaves a run of the same id");
  }

  @Test
  void S3_describesTheWorkForMessages() {
    WorkSet w = WorkSet.EMPTY.plus(Kind.RUN, "r1").plus(Kind.QUEUED_INPUT, "a").plus(Kind.QUEUED_INPUT, "b");
    assertEquals("1 run, 2 queued inputs", w.describe());
    assertEquals("no work", WorkSet.EMPTY.describe());
    assertEquals("1 child process that has not ended", WorkSet.EMPTY.plus(Kind.UNSETTLED_CHILD, "c1").describe());
    assertEquals("2 child processes that have not ended",
        WorkSet.EMPTY.plus(Kind.UNSETTLED_CHILD, "c1").plus(Kind.UNSETTLED_CHILD, "c2").describe());
    assertEquals(w, WorkSet.EMPTY.plus(Kind.QUEUED_INPUT, "b").plus(Kind.QUEUED_INPUT, "a").plus(Kind.RUN, "r1"));
  }

  @Test
  void S3_workSetAgreesWithLawModel() {
    Props.Coverage cov = new Props.Coverage("S3 work set", "busy", "idle", "idle by withdrawal", "busy after withdrawal");
    Props.forSeeds(3_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      WorkSet impl = WorkSet.EMPTY;
      WorkLaw law = new WorkLaw();
      int steps = 1 + r.nextInt(25);
      for (int i = 0; i < steps; i++) {
        Kind k = Kind.values()[r.nextInt(Kind.values().length)];
        String id = "w" + r.nextInt(3);
        boolean withdrawal = false;
        switch (r.nextInt(3)) {
          case 0 -> {
            impl = impl.plus(k, id);
            law.arrived(k, id);
          }
          case 1 -> {
            impl = impl.minus(k, id);
            law.ended(k, id);
          }
          default -> {
            withdrawal = true;
            impl = impl.withdraw(id);
            law.withdrawn(id);
          }
        }
        String ctx = "seed " + seed + ", step " + i + ", " + impl;
        assertEquals(law.isBusy(), impl.isBusy(), ctx);
        assertEquals(law.size(), impl.items().size(), ctx);
        assertFalse(impl.isBusy() == impl.isIdle(), ctx);
        cov.label(impl.isBusy() ? "busy" : "idle");
        if (withdrawal) {
          cov.label(impl.isBusy() ? "busy after withdrawal" : "idle by withdrawal");
        }
      }
    });
    cov.assertComplete();
  }
}
