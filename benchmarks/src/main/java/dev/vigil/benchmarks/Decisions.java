package dev.vigil.benchmarks;

import dev.vigil.coordination.Claim;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketMove;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import dev.vigil.coordination.law.LeaseLaw;
import dev.vigil.supervisor.RestartBudget;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * B2: the pure decisions, ns per call. Run with
 * {@code java -jar benchmarks/target/benchmarks.jar Decisions}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class Decisions {
  private static final long NOW = 1_700_000_000_000L;
  private final RetryPolicy policy = RetryPolicy.DEFAULT;
  private final Ticket leased = new Ticket(new TicketId(7), Lane.DEFAULT, "command", "{}", TicketState.LEASED, 1, 3, 0, 0,
      NOW - 10_000, false, null, 0);
  private final RestartBudget.Policy budgetPolicy = RestartBudget.Policy.DEFAULT;
  private RestartBudget twoFailures;
  private Map<Timeout, Long> overrides;
  private long mono;

  /** The reference model with 1,000 READY tickets; one claimed and settled per call. */
  private LeaseLaw law;
  private List<TicketId> ready;
  private int next;
  private final OwnerId owner = new OwnerId("d-jmh");
  private final ExitOwner exitOwner = ExitOwner.supervisor(owner);
  private final RunStart start = new RunStart(new ProcessIdentity("boot", 4242, 1, 4242), "bench", "ab".repeat(32), 0);
  private TicketId leasedInLaw;

  @Setup(Level.Iteration)
  public void setUp() {
    twoFailures = RestartBudget.fresh(budgetPolicy).onFailure(1_000).next().onFailure(2_000).next();
    mono = 3_000;
    overrides = new EnumMap<>(Timeout.class);
    overrides.put(Timeout.HEARTBEAT, 2_000L);
    overrides.put(Timeout.RECONCILE, 3_000L);
    overrides.put(Timeout.LEASE_TTL, 20_000L);
    law = new LeaseLaw(policy);
    ready = new java.util.ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      ready.add(((Submission.Accepted) law.submit(NewTicket.of(Lane.DEFAULT, "command", "{}"), NOW)).ticket().id());
    }
    leasedInLaw = ((Submission.Accepted) law.submit(NewTicket.of(Lane.DEFAULT, "command", "{}"), NOW)).ticket().id();
    law.claim(leasedInLaw, owner, NOW, 30_000);
    next = 0;
  }

  /** RetryPolicy: a FAILED run of a ticket with attempts to spare → READY with backoff. */
  @Benchmark
  public TicketMove retryPolicyDecide() {
    return policy.decide(leased, false, Verdict.FAILED, "exit 1", 0, NOW);
  }

  /** RestartBudget: a third failure within the window → restart after a backoff. */
  @Benchmark
  public Object restartBudgetOnFailure() {
    mono += 1;
    return twoFailures.onFailure(mono).decision();
  }

  /** TimeoutLattice.validate of a configuration that overrides three timeouts. */
  @Benchmark
  public Object timeoutLatticeValidate() {
    return TimeoutLattice.validate(overrides, TimeoutLattice.DEFAULT_RESTART_GIVE_UP_COUNT);
  }

  /** LeaseLaw: a claim denied because the ticket is leased (the decision alone). */
  @Benchmark
  public Claim leaseLawClaimDenied() {
    return law.claim(leasedInLaw, owner, NOW, 30_000);
  }

  /**
   * LeaseLaw: one granted claim, then start, takeExit and a stalled finish that makes the ticket
   * due again, round-robin over 1,000 tickets (the cycle of B1 on the model).
   */
  @Benchmark
  public Object leaseLawClaimCycle() {
    TicketId t = ready.get(next++ % ready.size());
    RunId run = ((Claim.Granted) law.claim(t, owner, NOW, 30_000)).run().id();
    law.start(run, owner, start);
    law.takeExit(run, exitOwner, RunExit.code(75, NOW));
    return law.finish(Finish.stalled(exitOwner, run, NOW, "quota"), NOW);
  }
}
