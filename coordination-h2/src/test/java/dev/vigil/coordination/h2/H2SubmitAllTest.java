package dev.vigil.coordination.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.law.CoordinationInvariants;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code submitAll} on a real H2 file where the model cannot show it: a batch that fails in the
 * middle of its transaction (a constraint added by plain SQL refuses its third ticket), batches
 * racing single submissions from several threads, and the time a batch of 1,000 takes (printed,
 * not asserted).
 */
class H2SubmitAllTest {
  private static final long T0 = 1_700_000_000_000L;

  @TempDir
  Path dir;

  private static NewTicket ticket(String payload, String key) {
    return new NewTicket(Lane.DEFAULT, "command", payload, 3, 0, 0, key);
  }

  @Test
  void aBatchThatFailsInsideItsTransaction_queuesNothing_andNumberingGoesOnWithoutAGap() throws Exception {
    try (H2Coordination h2 = H2Coordination.open(dir.resolve("fault.mv.db"), H2Options.defaults())) {
      assertInstanceOf(Submission.Accepted.class, h2.submit(ticket("{}", "first"), T0));
      try (Connection c = DatabaseFile.connect(h2.url()); Statement s = c.createStatement()) {
        s.executeUpdate("ALTER TABLE tickets ADD CONSTRAINT refuse_poison CHECK (payload <> '{\"poison\":1}')");
      }
      Snapshot before = h2.store().snapshot();
      List<NewTicket> batch = List.of(ticket("{\"n\":1}", "a"), ticket("{\"n\":2}", null),
          ticket("{\"poison\":1}", "b"), ticket("{\"n\":4}", null));
      CoordinationStoreException e = assertThrows(CoordinationStoreException.class, () -> h2.submitAll(batch, T0 + 1));
      assertTrue(e.getMessage().contains("submitAll failed"), e.getMessage());
      assertEquals(before, h2.store().snapshot(), "the two tickets inserted before the failure were rolled back");

      List<Submission> again = h2.submitAll(List.of(ticket("{\"n\":1}", "a"), ticket("{\"n\":2}", null)), T0 + 2);
      assertEquals(List.of(new TicketId(2), new TicketId(3)), again.stream()
          .map(s -> assertInstanceOf(Submission.Accepted.class, s).ticket().id()).toList(),
          "the key of the failed batch is free and no number was spent");
      CoordinationInvariants.check(h2.store());
    }
  }

  @Test
  void batchesRacingSingleSubmissions_eachBatchGetsConsecutiveNumbers_andNoKeyIsQueuedTwice() throws Exception {
    int threads = 4;
    int rounds = 15;
    int batchSize = 12;
    try (H2Coordination h2 = H2Coordination.open(dir.resolve("race.mv.db"), H2Options.defaults())) {
      ConcurrentLinkedQueue<List<Submission>> batches = new ConcurrentLinkedQueue<>();
      ConcurrentLinkedQueue<Submission> singles = new ConcurrentLinkedQueue<>();
      AtomicReference<Throwable> failed = new AtomicReference<>();
      List<Thread> all = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int me = t;
        Thread th = new Thread(() -> {
          try {
            for (int r = 0; r < rounds; r++) {
              List<NewTicket> batch = new ArrayList<>();
              for (int i = 0; i < batchSize; i++) {
                // keys shared between threads: every key is queued once, by whoever comes first
                batch.add(ticket("{\"t\":" + me + "}", i % 3 == 0 ? "k-" + r + "-" + i : null));
              }
              batches.add(h2.submitAll(batch, T0 + r));
              singles.add(h2.submit(ticket("{}", "k-" + r + "-0"), T0 + r));
              singles.add(h2.submit(ticket("{}", null), T0 + r));
            }
          } catch (Throwable e) {
            failed.compareAndSet(null, e);
          }
        }, "submitter-" + t);
        all.add(th);
        th.start();
      }
      for (Thread th : all) {
        th.join();
      }
      if (failed.get() != null) {
        throw new AssertionError("a submitter failed", failed.get());
      }
      int accepted = 0;
      int duplicates = 0;
      for (List<Submission> b : batches) {
        List<Long> ids = new ArrayList<>();
        for (Submission s : b) {
          if (s instanceof Submission.Accepted a) {
            ids.add(a.ticket().id().seq());
            accepted++;
          } else {
            duplicates++;
          }
        }
        for (int i = 1; i < ids.size(); i++) {
          assertEquals(ids.get(i - 1) + 1, ids.get(i), "one batch is numbered without a gap: " + ids);
        }
      }
      for (Submission s : singles) {
        if (s instanceof Submission.Accepted) {
          accepted++;
        } else {
          duplicates++;
        }
      }
      List<Ticket> stored = h2.store().tickets(TicketQuery.all());
      assertEquals(accepted, stored.size());
      Set<Long> seqs = new TreeSet<>();
      stored.forEach(t -> seqs.add(t.id().seq()));
      assertEquals(stored.size(), seqs.size());
      assertEquals((long) stored.size(), ((TreeSet<Long>) seqs).last(), "numbers 1..n, no gap");
      // per round, batchSize / 3 keys shared by every thread's batch and one single: each queued once
      int keys = rounds * (batchSize / 3);
      int keyed = threads * rounds * (batchSize / 3 + 1);
      assertEquals(keyed - keys, duplicates, "every keyed submission but the first of each key is a duplicate");
      assertEquals(List.of((long) keys, (long) keys), keyCounts(h2), "keyed tickets, distinct keys");
      CoordinationInvariants.check(h2.store());
    }
  }

  /** How many stored tickets carry a key, and how many distinct keys they carry. */
  private static List<Long> keyCounts(H2Coordination h2) throws java.sql.SQLException {
    try (Connection c = DatabaseFile.connect(h2.url()); Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT COUNT(idempotency_key), COUNT(DISTINCT idempotency_key) FROM tickets")) {
      rs.next();
      return List.of(rs.getLong(1), rs.getLong(2));
    }
  }

  @Test
  void aBatchOfAThousand_isOneTransaction_andItsTimeIsPrinted() {
    try (H2Coordination h2 = H2Coordination.open(dir.resolve("thousand.mv.db"), H2Options.defaults())) {
      List<NewTicket> batch = new ArrayList<>();
      for (int i = 0; i < 1_000; i++) {
        batch.add(ticket("{\"argv\":[\"echo\",\"" + i + "\"]}", i % 10 == 0 ? "job-" + i : null));
      }
      h2.submitAll(List.of(ticket("{}", null)), T0); // warm the statements
      long t0 = System.nanoTime();
      List<Submission> got = h2.submitAll(batch, T0);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertEquals(1_000, got.size());
      assertEquals(new TicketId(1_001), ((Submission.Accepted) got.get(999)).ticket().id());
      System.out.println("submitAll of 1000 tickets on H2: " + ms + " ms");
    }
  }
}
