package dev.vigil.supervisor.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunId;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.supervisor.engine.port.Launch;
import dev.vigil.supervisor.engine.port.LaunchRequest;
import dev.vigil.supervisor.engine.port.Prepared;
import dev.vigil.supervisor.engine.port.ProcessExit;
import dev.vigil.supervisor.engine.port.ProcessTable;
import dev.vigil.supervisor.engine.port.RunDirectories;
import dev.vigil.supervisor.engine.port.Signal;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link ProcessTable} keeps, as its javadoc states it: a launch starts a group
 * leader in its own session that takes its reservation and writes its identity (Q3); identities
 * are compared field by field, and a worker is dead when no live process matches (C5); signals are
 * identity-gated; every launched worker's exit is reported once. The simulation's fake and
 * worker-runtime's adapter extend this class.
 *
 * <p>Workers are what the table launches for a {@link LaunchRequest}; time passes only through
 * {@link #await}, so a fake may run on a simulated clock.
 */
public abstract class ProcessTableContract {
  /** The build every request launches with. */
  protected static final String BUILD = "1.0.0+contract";

  /** The table under test, fresh for each test. */
  protected abstract ProcessTable processes();

  /** The directories of the table's workers (the same home). */
  protected abstract RunDirectories directories();

  /**
   * Launches {@code request} through the table under test as a broken install: the worker ends at
   * once with a failure status, before it takes its reservation.
   */
  protected abstract Launch launchBroken(LaunchRequest request);

  /** Kills the process {@code identity} alone, outright ({@code kill -9}), as a crash does. */
  protected abstract void kill9(ProcessIdentity identity);

  /** Every exit the table reported so far. */
  protected abstract List<ProcessExit> exits();

  /** Lets time pass until {@code condition} holds; fails naming {@code what} when it does not in time. */
  protected abstract void await(String what, BooleanSupplier condition);

  // ---- helpers ----

  private static final WorkerKey RUN = new WorkerKey.Task(RunId.parse("t-1.1"));
  private static final WorkerKey SERVICE = new WorkerKey.Service("indexer");

  protected static LaunchRequest request(WorkerKey key) {
    return new LaunchRequest(key, WorkerTypeSpec.command(), "{\"argv\":[\"true\"]}", key instanceof WorkerKey.Task ? 1 : 0, BUILD);
  }

  /** Launches a worker of {@code key} and waits until it holds its reservation and wrote its identity. */
  private Launch.Started launched(WorkerKey key) {
    assertInstanceOf(Prepared.Ready.class, directories().prepare(key));
    Launch.Started started = assertInstanceOf(Launch.Started.class, processes().launch(request(key)));
    await("Q3: the worker of " + key + " holds its reservation and wrote its identity " + started.identity(),
        () -> directories().isReserved(key) && recordedIdentity(key).equals(Optional.of(started.identity())));
    return started;
  }

  private Optional<ProcessIdentity> recordedIdentity(WorkerKey key) {
    return directories().identity(key) instanceof IdentityRecord.Written w ? Optional.of(w.identity()) : Optional.empty();
  }

  private List<ProcessExit> exitsOf(ProcessIdentity identity) {
    return exits().stream().filter(x -> x.identity().equals(identity)).toList();
  }

  /** Waits for the exit of {@code identity} and checks it is reported once. */
  private ProcessExit exitOf(ProcessIdentity identity) {
    await("the exit of " + identity + " is reported", () -> !exitsOf(identity).isEmpty());
    List<ProcessExit> reported = exitsOf(identity);
    assertEquals(1, reported.size(), "a launched worker's exit is reported once: " + reported);
    return reported.get(0);
  }

  private boolean dead(ProcessIdentity identity) {
    return !processes().alive(identity);
  }

  // ---- self ----

  @Test
  void self_isALiveProcess_thatItsOwnPidResolvesTo() {
    ProcessIdentity self = processes().self();
    assertEquals(self, processes().self(), "self() is constant for the life of the process");
    assertTrue(processes().alive(self), "this daemon is alive by its own identity");
    assertEquals(Optional.of(self), processes().identity(self.pid()));
  }

  // ---- launch ----

  @Test
  void Q3_launchStartsAGroupLeader_thatTakesItsReservationAndWritesItsIdentity() {
    for (WorkerKey key : List.of(RUN, SERVICE)) {
      Launch.Started started = launched(key);
      ProcessIdentity id = started.identity();
      assertEquals(id.pid(), id.pgid(), "the worker of " + key + " leads its own process group (setsid)");
      assertEquals(processes().self().bootId(), id.bootId(), "the worker runs on this boot");
      assertTrue(processes().alive(id), "C5: the launched worker is alive by identity");
      assertEquals(Optional.of(id), processes().identity(id.pid()), "its pid resolves to its identity");
      IdentityRecord.Written record = assertInstanceOf(IdentityRecord.Written.class, directories().identity(key));
      if (record.build() != null) {
        assertEquals(BUILD, record.build(), "S6: a recorded build is the build the worker was launched with");
      }
      if (record.tokenHash() != null) {
        assertEquals(started.tokenHash(), record.tokenHash(), "C9: a recorded token hash is the launch's");
      }
    }
  }

  @Test
  void C9_eachLaunchGivesItsWorkerAFreshToken() {
    Launch.Started run = launched(RUN);
    Launch.Started service = launched(SERVICE);
    assertNotEquals(run.tokenHash(), service.tokenHash(), "C9: a token is valid for its own worker only");
    assertNotEquals(run.identity(), service.identity());
  }

  @Test
  void aWorkerThatEndsAtOnce_isReportedOnce_andNeverHeldItsReservation() {
    assertInstanceOf(Prepared.Ready.class, directories().prepare(RUN));
    Launch launch = launchBroken(request(RUN));
    if (launch instanceof Launch.Started started) {
      ProcessExit exit = exitOf(started.identity());
      assertFalse(exit.clean(), "a broken worker ends with a failure: " + exit);
      assertTrue(dead(started.identity()), "C5: an exited worker is not alive");
      String words = directories().lastWords(RUN).orElseThrow(() -> new AssertionError("the broken worker's stderr says why"));
      assertFalse(words.isBlank() || words.contains("\n"), "its last words, on one line: " + words);
    } else if (launch instanceof Launch.Failed failed) {
      assertFalse(failed.why().isBlank(), "a failed launch says why");
    } else {
      throw new AssertionError(launch);
    }
    assertFalse(directories().isReserved(RUN), "the broken worker left the reservation free");
    assertInstanceOf(IdentityRecord.Absent.class, directories().identity(RUN), "and wrote no identity");
  }

  @Test
  void aSecondWorkerOfAKey_endsWithoutTakingTheReservationOrTheIdentityOfTheFirst() {
    Launch.Started first = launched(RUN);
    Launch.Started second = assertInstanceOf(Launch.Started.class, processes().launch(request(RUN)));
    ProcessExit exit = exitOf(second.identity());
    assertFalse(exit.clean(), "a worker that finds its reservation held ends with a failure: " + exit);
    assertTrue(processes().alive(first.identity()), "the first worker lives on");
    assertTrue(directories().isReserved(RUN), "and still holds the reservation");
    assertEquals(Optional.of(first.identity()), recordedIdentity(RUN), "its identity record stands");
    assertTrue(exitsOf(first.identity()).isEmpty(), "no exit is reported for the first worker");
  }

  // ---- death and signals (C5) ----

  @Test
  void C5_anIdentityThatDiffersInAnyField_isNotAlive_andIsNeverSignalled() {
    ProcessIdentity id = launched(RUN).identity();
    List<ProcessIdentity> forged = List.of(
        new ProcessIdentity(id.bootId(), id.pid(), id.startTicks() + 1, id.pgid()),
        new ProcessIdentity(id.bootId(), id.pid(), id.startTicks(), id.pgid() + 1),
        new ProcessIdentity(id.bootId() + "-other", id.pid(), id.startTicks(), id.pgid()));
    for (ProcessIdentity f : forged) {
      assertFalse(processes().alive(f), "C5: a reused pid is not alive: " + f);
      assertFalse(processes().signalGroup(f, Signal.KILL), "C5: nothing is sent to a reused pid: " + f);
    }
    assertTrue(processes().alive(id), "the worker behind the pid was not signalled");
    assertTrue(directories().isReserved(RUN));
    assertTrue(exitsOf(id).isEmpty(), "and did not exit");
  }

  @Test
  void C5_aWorkerKilledOutright_isDeadByIdentity_freesItsReservation_andIsNeverSignalledAgain() {
    ProcessIdentity id = launched(RUN).identity();
    kill9(id);
    await("C5: the killed worker is dead by identity", () -> dead(id));
    await("Q4: its reservation is free", () -> !directories().isReserved(RUN));
    assertNotEquals(Optional.of(id), processes().identity(id.pid()), "its pid no longer resolves to it");
    assertFalse(processes().signalGroup(id, Signal.TERM), "C5: a dead identity is never signalled");
    assertFalse(processes().signalGroup(id, Signal.KILL), "C5: a dead identity is never signalled");
    assertEquals(ProcessExit.signal(id, 9), exitOf(id), "the exit names the KILL");
  }

  @Test
  void signalGroup_KILL_endsTheWorker_andItsExitNamesTheSignal() {
    ProcessIdentity id = launched(SERVICE).identity();
    assertTrue(processes().signalGroup(id, Signal.KILL), "a live identity is signalled");
    await("the killed worker is dead by identity", () -> dead(id));
    assertEquals(ProcessExit.signal(id, 9), exitOf(id));
    assertFalse(directories().isReserved(SERVICE), "its reservation died with it");
  }

  @Test
  void signalGroup_TERM_endsAWorkerThatHonoursIt_andItsExitNamesTheSignal() {
    ProcessIdentity id = launched(RUN).identity();
    assertTrue(processes().signalGroup(id, Signal.TERM), "a live identity is signalled");
    await("the terminated worker is dead by identity", () -> dead(id));
    assertEquals(ProcessExit.signal(id, 15), exitOf(id));
  }
}
