package dev.vigil.supervisor.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.RevivalGate;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.supervisor.engine.port.OutcomeRecord;
import dev.vigil.supervisor.engine.port.Prepared;
import dev.vigil.supervisor.engine.port.RunDirectories;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link RunDirectories} keeps, as its javadoc states it: a free reservation
 * lock means no live worker (C5, Q4); {@code prepare} is idempotent and keeps a service's files;
 * every read is permissive, so a missing, truncated or corrupt file reads as a value with a
 * diagnosis, never as an exception. The simulation's fake and worker-runtime's adapter extend this
 * class.
 *
 * <p>The fixture writes files as a worker does, and damages them as a crash or a disk does; time
 * passes only through {@link #await}.
 */
public abstract class RunDirectoriesContract {
  /** The files a worker writes into its directory. */
  protected enum WorkerFile {
    IDENTITY, OUTCOME, BUSY
  }

  /** How a file is damaged. */
  protected enum Damage {
    /** Created but never written (a crash between create and write). */
    EMPTY,
    /** A valid record cut short. */
    TRUNCATED,
    /** Bytes that are not JSON. */
    NOT_JSON,
    /** Well-formed JSON that is not a valid record of its kind. */
    INVALID
  }

  /** The directories under test, fresh (empty) for each test. */
  protected abstract RunDirectories directories();

  /**
   * Starts a worker of {@code key}, whose directory is prepared, and returns its identity once it
   * holds the reservation and wrote its identity record.
   */
  protected abstract ProcessIdentity startWorker(WorkerKey key);

  /** Kills the process {@code identity} outright ({@code kill -9}), as a crash does. */
  protected abstract void kill9(ProcessIdentity identity);

  /** Lets time pass until {@code condition} holds; fails naming {@code what} when it does not in time. */
  protected abstract void await(String what, BooleanSupplier condition);

  /** Writes the identity record of {@code key} as a worker does. */
  protected abstract void writeIdentity(WorkerKey key, IdentityRecord.Written record);

  /** Writes the outcome of {@code run} as a worker does. */
  protected abstract void writeOutcome(RunId run, OutcomeRecord.Written outcome);

  /** Writes the busy evidence of {@code key} as a worker does. */
  protected abstract void writeBusy(WorkerKey key, RevivalGate.BusyRecord record);

  /** Leaves {@code file} of {@code key} damaged as {@code damage} says. */
  protected abstract void damage(WorkerKey key, WorkerFile file, Damage damage);

  // ---- helpers ----

  private static final RunId RUN = RunId.parse("t-1.1");
  private static final WorkerKey TASK = new WorkerKey.Task(RUN);
  private static final WorkerKey SERVICE = new WorkerKey.Service("indexer");
  private static final ProcessIdentity SOME_WORKER = new ProcessIdentity("boot-1", 4242, 99, 4242);

  private void prepare(WorkerKey key) {
    assertInstanceOf(Prepared.Ready.class, directories().prepare(key), "prepare " + key);
  }

  private static WorkerKey.Task task(int n) {
    return new WorkerKey.Task(RunId.parse("t-" + n + ".1"));
  }

  // ---- missing and fresh directories ----

  @Test
  void aDirectoryThatDoesNotExist_isNotReserved_andEveryReadIsAbsent() {
    for (WorkerKey key : List.of(TASK, SERVICE)) {
      assertFalse(directories().isReserved(key), "no directory, no reservation: " + key);
      assertInstanceOf(IdentityRecord.Absent.class, directories().identity(key));
      assertEquals(Optional.empty(), directories().latestBusy(key));
      assertEquals(Optional.empty(), directories().lastWords(key), "no log, no last words: " + key);
    }
    OutcomeRecord.Absent absent = assertInstanceOf(OutcomeRecord.Absent.class, directories().outcome(RUN));
    assertFalse(absent.diagnosis().isBlank(), "an absent outcome says so");
  }

  @Test
  void C5_aPreparedDirectoryIsFree_andHoldsNoRecordYet() {
    for (WorkerKey key : List.of(TASK, SERVICE)) {
      prepare(key);
      assertFalse(directories().isReserved(key), "C5: a free reservation lock means no live worker: " + key);
      assertInstanceOf(IdentityRecord.Absent.class, directories().identity(key));
      assertEquals(Optional.empty(), directories().latestBusy(key));
      assertEquals(Optional.empty(), directories().lastWords(key), "an empty log has no last words: " + key);
    }
    assertInstanceOf(OutcomeRecord.Absent.class, directories().outcome(RUN));
  }

  @Test
  void prepare_isIdempotent_andKeepsWhatAServicesDirectoryHolds() {
    prepare(SERVICE);
    IdentityRecord.Written identity = new IdentityRecord.Written(SOME_WORKER, "1.0.0+b1", "ab".repeat(32));
    RevivalGate.BusyRecord busy = new RevivalGate.BusyRecord(true, 1_700_000_000_000L);
    writeIdentity(SERVICE, identity);
    writeBusy(SERVICE, busy);
    prepare(SERVICE);
    assertEquals(identity, directories().identity(SERVICE), "the session's identity record is kept");
    assertEquals(Optional.of(busy), directories().latestBusy(SERVICE), "S3: the session's busy record is kept");
  }

  // ---- the reservation (C5, Q4) ----

  @Test
  void Q4_theReservationIsHeldWhileItsWorkerLives_andFreeOnceItDied() {
    prepare(TASK);
    ProcessIdentity worker = startWorker(TASK);
    assertTrue(directories().isReserved(TASK), "Q4: a live worker holds its reservation");
    IdentityRecord.Written record = assertInstanceOf(IdentityRecord.Written.class, directories().identity(TASK));
    assertEquals(worker, record.identity());
    kill9(worker);
    await("Q4: the reservation of a dead worker is free", () -> !directories().isReserved(TASK));
    assertEquals(record, directories().identity(TASK), "the identity record outlives its worker, for recovery");
  }

  // ---- identity records ----

  @Test
  void anIdentityRecordReadsBackAsWritten_withOrWithoutBuildAndTokenHash() {
    prepare(TASK);
    prepare(SERVICE);
    IdentityRecord.Written full = new IdentityRecord.Written(SOME_WORKER, "1.0.0+b1", "0f".repeat(32));
    IdentityRecord.Written bare = IdentityRecord.Written.bare(new ProcessIdentity("boot-1", 4343, 7, 4343));
    writeIdentity(TASK, full);
    writeIdentity(SERVICE, bare);
    assertEquals(full, directories().identity(TASK));
    assertEquals(bare, directories().identity(SERVICE));
  }

  @Test
  void anIdentityFileThatCannotBeRead_readsAsCorrupt_withADiagnosisNamingIt() {
    int n = 0;
    for (Damage d : Damage.values()) {
      WorkerKey key = task(++n);
      prepare(key);
      damage(key, WorkerFile.IDENTITY, d);
      IdentityRecord.Corrupt c = assertInstanceOf(IdentityRecord.Corrupt.class, directories().identity(key), d.name());
      assertTrue(c.diagnosis().contains("identity.json"), d + ": " + c.diagnosis());
    }
  }

  // ---- outcomes ----

  @Test
  void aWrittenOutcomeReadsBackWithItsVerdict() {
    int n = 0;
    for (Verdict v : OutcomeRecord.WRITABLE) {
      RunId run = task(++n).run();
      prepare(new WorkerKey.Task(run));
      OutcomeRecord.Written outcome = new OutcomeRecord.Written(v, v == Verdict.STALLED ? 1_700_000_060_000L : 0,
          "note of " + v);
      writeOutcome(run, outcome);
      assertEquals(outcome, directories().outcome(run));
    }
  }

  @Test
  void aSucceededOutcome_readsBackWithItsResult_asCompactJsonText() {
    int n = 0;
    for (String result : java.util.List.of("{\"primes\":9592,\"below\":100000}", "[1,2.5,\"caf\u00e9\"]", "\"done\"",
        "42", "true")) {
      RunId run = task(++n).run();
      prepare(new WorkerKey.Task(run));
      OutcomeRecord.Written outcome = new OutcomeRecord.Written(Verdict.SUCCEEDED, 0, "counted", null, result);
      writeOutcome(run, outcome);
      assertEquals(outcome, directories().outcome(run), result);
    }
  }

  @Test
  void anOutcomeFileThatCannotBeRead_readsAsCorrupt_withADiagnosisNamingIt() {
    int n = 0;
    for (Damage d : Damage.values()) {
      WorkerKey.Task key = task(++n);
      prepare(key);
      damage(key, WorkerFile.OUTCOME, d);
      OutcomeRecord.Corrupt c = assertInstanceOf(OutcomeRecord.Corrupt.class, directories().outcome(key.run()), d.name());
      assertTrue(c.diagnosis().contains("outcome.json"), d + ": " + c.diagnosis());
    }
  }

  // ---- busy evidence (S3) ----

  @Test
  void S3_latestBusyIsTheLastRecordWritten_andEmptyWhenUnreadable() {
    prepare(SERVICE);
    writeBusy(SERVICE, new RevivalGate.BusyRecord(true, 1_000));
    writeBusy(SERVICE, new RevivalGate.BusyRecord(false, 2_000));
    assertEquals(Optional.of(new RevivalGate.BusyRecord(false, 2_000)), directories().latestBusy(SERVICE));
    int n = 0;
    for (Damage d : Damage.values()) {
      WorkerKey key = new WorkerKey.Service("svc-" + (++n));
      prepare(key);
      writeBusy(key, new RevivalGate.BusyRecord(true, 1_000));
      damage(key, WorkerFile.BUSY, d);
      assertEquals(Optional.empty(), directories().latestBusy(key), "S3: an unreadable busy record revives nothing: " + d);
    }
  }
}
