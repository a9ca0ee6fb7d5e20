package dev.vigil.launcher.internal;

import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.h2.CoordinationStoreException;
import dev.vigil.coordination.h2.DamagedStoreException;
import dev.vigil.coordination.h2.H2Coordination;
import dev.vigil.coordination.h2.H2Options;
import dev.vigil.coordination.h2.StoreUnavailableException;
import dev.vigil.coordination.postgres.PostgresCoordination;
import dev.vigil.coordination.postgres.PostgresRefusedException;
import dev.vigil.coordination.postgres.PostgresStoreException;
import dev.vigil.coordination.postgres.PostgresUnavailableException;
import dev.vigil.coordination.schedule.Schedules;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The open store of a daemon, whichever the configuration chose ({@link StoreConfig}): the embedded H2
 * file under the home, or a PostgreSQL server that daemons of several hosts share. The daemon uses it
 * through the coordination port only; what differs between the two is here: how each opens, how its
 * failures read in plain words, and which failures at a start are the configuration's (exit 2) rather
 * than the moment's (exit 1).
 */
final class StoreHandle implements AutoCloseable {
  private final Coordination coordination;
  private final Schedules schedules;
  /** The H2 store, for what only a file store does (check, backup); null on PostgreSQL. */
  private final H2Coordination h2;
  private final AutoCloseable closer;

  private StoreHandle(Coordination coordination, Schedules schedules, H2Coordination h2, AutoCloseable closer) {
    this.coordination = Objects.requireNonNull(coordination, "coordination");
    this.schedules = Objects.requireNonNull(schedules, "schedules");
    this.h2 = h2;
    this.closer = closer;
  }

  /**
   * Opens the configured store.
   *
   * @param h2Options adjusts the H2 store's options (a test reaches the file through a file system that
   *                  fails on demand); unused on PostgreSQL
   * @param onNewWork called, on a thread of the store's, when a shared store says a ticket became
   *                  claimable; never on the embedded store, whose every change is this daemon's
   * @throws RuntimeException the store's own failure, for {@link #failure} and {@link #refusal}
   */
  static StoreHandle open(VigilConfig config, Home home, UnaryOperator<H2Options> h2Options, Runnable onNewWork) {
    if (config.store() instanceof StoreConfig.Postgres pg) {
      PostgresCoordination c = PostgresCoordination.open(pg.options(config.retry()));
      c.onNewWork(onNewWork); // work submitted through another host is looked at once it is there
      return new StoreHandle(c, c.schedules(), null, c);
    }
    H2Coordination c = H2Coordination.open(home.databaseFile(),
        h2Options.apply(H2Options.defaults().withRetryPolicy(config.retry()).withDurability(config.durability())));
    return new StoreHandle(c, c.schedules(), c, c);
  }

  /** Where the configured store lives, as people read it: the file, or the server and schema. */
  static String where(VigilConfig config, Home home) {
    return config.store() instanceof StoreConfig.Postgres pg ? pg.where() : home.databaseFile().toString();
  }

  Coordination coordination() {
    return coordination;
  }

  Schedules schedules() {
    return schedules;
  }

  /** The H2 store, when that is the store. */
  Optional<H2Coordination> h2() {
    return Optional.ofNullable(h2);
  }

  /** Closes the store; a failure to close (a full disk cannot take H2's clean close) is the caller's to log. */
  @Override
  public void close() {
    try {
      closer.close();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Why the store cannot be used, in a few plain words, when {@code e} is a failure of the store (H2's
   * or PostgreSQL's) rather than of the code that called it; empty otherwise.
   */
  static Optional<String> failure(Throwable e) {
    Optional<CoordinationStoreException> h2 = CoordinationStoreException.in(e, CoordinationStoreException.class);
    if (h2.isPresent()) {
      Optional<StoreUnavailableException> u = StoreUnavailableException.in(h2.get());
      if (u.isPresent()) {
        return Optional.of(u.get().reason());
      }
      Optional<DamagedStoreException> d = DamagedStoreException.in(h2.get());
      if (d.isPresent()) {
        return Optional.of("it is damaged (" + d.get().reason() + "; see vigil store check)");
      }
      return Optional.of(shortLine(h2.get().getMessage()));
    }
    Optional<PostgresStoreException> pg = PostgresStoreException.in(e, PostgresStoreException.class);
    if (pg.isPresent()) {
      Optional<PostgresUnavailableException> u = PostgresUnavailableException.in(pg.get());
      if (u.isPresent()) {
        return Optional.of(u.get().reason());
      }
      Optional<PostgresRefusedException> r = PostgresStoreException.in(pg.get(), PostgresRefusedException.class);
      if (r.isPresent()) {
        return Optional.of("the server refused the " + r.get().field() + " of the configuration (store.postgresql."
            + r.get().field() + ")");
      }
      return Optional.of(shortLine(pg.get().getMessage()));
    }
    return Optional.empty();
  }

  /**
   * The exit code and line of a daemon start whose store did not open: 2 when the configuration or the
   * file is at fault (a damaged H2 file, a password file that cannot be read, a password, user or database
   * the server refused), 1 when the
   * moment is (a server that cannot be reached, a file that cannot be opened now).
   */
  static Daemon.Refused refusal(RuntimeException e, VigilConfig config, Home home) {
    if (e instanceof IllegalArgumentException && String.valueOf(e.getMessage()).startsWith("passwordFile")) {
      return new Daemon.Refused(2, "store.postgresql." + Wire.oneLine(e.getMessage()));
    }
    Optional<DamagedStoreException> damaged = DamagedStoreException.in(e);
    if (damaged.isPresent()) {
      return new Daemon.Refused(2, StoreOps.damagedLine(damaged.get()));
    }
    Optional<PostgresRefusedException> refused = PostgresStoreException.in(e, PostgresRefusedException.class);
    if (refused.isPresent()) {
      return new Daemon.Refused(2, "store.postgresql." + refused.get().field() + ": " + Wire.oneLine(refused.get().getMessage()));
    }
    Optional<PostgresUnavailableException> unreachable = PostgresUnavailableException.in(e);
    if (unreachable.isPresent()) { // its message names the server, the reason and the driver's words
      return new Daemon.Refused(1, Wire.oneLine(unreachable.get().getMessage()));
    }
    return new Daemon.Refused(1, "cannot open the store: " + Wire.oneLine(e.getMessage()));
  }

  private static String shortLine(String message) {
    String m = Wire.oneLine(String.valueOf(message));
    return m.length() <= 200 ? m : m.substring(0, 197) + "...";
  }
}
