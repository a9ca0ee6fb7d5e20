package dev.vigil.coordination.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.Properties;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells its caller when a ticket of one store became READY, through the server's notifications
 * ({@link Schema} version 2): a connection of its own, outside the pool, listens on
 * {@value PostgresCoordination#CHANNEL}, and one thread waits for notifications of this store's schema.
 * After a lost connection it connects again with a backoff (1 s, doubling, at most 30 s) and calls
 * the caller once, since notifications sent meanwhile were missed. It is a hint, never a decision:
 * the caller still claims through the store, and looks at the queue on its own schedule too.
 *
 * <p>{@link #close()} stops it by a flag that the thread reads at least every second (each wait for a
 * notification is bounded), so it never interrupts a thread inside a JDBC call.
 */
final class NewWorkListener implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NewWorkListener.class);
  /** The longest wait for a notification before the flag is read again, ms. */
  static final int WAIT_MS = 1_000;
  private static final long MAX_BACKOFF_MS = 30_000;

  private final PostgresOptions options;
  private final Runnable onNewWork;
  private final Thread thread;
  private volatile boolean running = true;

  private NewWorkListener(PostgresOptions options, Runnable onNewWork) {
    this.options = options;
    this.onNewWork = onNewWork;
    this.thread = new Thread(this::loop, "vigil-postgres-notifications");
    this.thread.setDaemon(true);
  }

  static NewWorkListener start(PostgresOptions options, Runnable onNewWork) {
    NewWorkListener l = new NewWorkListener(Objects.requireNonNull(options, "options"),
        Objects.requireNonNull(onNewWork, "onNewWork"));
    l.thread.start();
    return l;
  }

  private void loop() {
    long backoff = 1_000;
    boolean missed = false;
    while (running) {
      try (Connection c = connect()) {
        try (Statement s = c.createStatement()) {
          s.execute("LISTEN " + PostgresCoordination.CHANNEL);
        }
        if (missed) {
          onNewWork.run(); // what was notified while the connection was down
          LOG.info("listening for new work on {} again", options.where());
        }
        backoff = 1_000;
        PGConnection pg = c.unwrap(PGConnection.class);
        int quiet = 0;
        while (running) {
          if (++quiet % 30 == 0) { // a server gone without a word is found out by asking, not by waiting
            try (Statement s = c.createStatement()) {
              s.execute("SELECT 1");
            }
          }
          PGNotification[] ns = pg.getNotifications(WAIT_MS);
          if (ns != null && ns.length > 0) {
            for (PGNotification n : ns) {
              if (options.schema().equals(n.getParameter())) {
                onNewWork.run();
                break;
              }
            }
          }
        }
      } catch (SQLException | RuntimeException e) {
        if (!running) {
          return;
        }
        if (!missed) {
          LOG.warn("lost the notifications of {} ({}); new work is seen at the next look at the queue until they"
              + " are back", options.where(), Transactions.oneLine(e instanceof SQLException s ? s
              : new SQLException(String.valueOf(e.getMessage()))));
        }
        missed = true;
        pause(backoff);
        backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
      }
    }
  }

  private Connection connect() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", options.user());
    p.setProperty("password", options.password());
    p.setProperty("ApplicationName", "vigil/" + options.schema() + "/notifications");
    p.setProperty("tcpKeepAlive", "true");
    p.setProperty("connectTimeout", Long.toString(Math.max(1, options.connectTimeout().toSeconds())));
    p.setProperty("socketTimeout", Integer.toString(PostgresCoordination.SOCKET_TIMEOUT_SECONDS));
    Connection c = DriverManager.getConnection(options.url(), p);
    c.setAutoCommit(true);
    return c;
  }

  private void pause(long ms) {
    long until = System.nanoTime() + ms * 1_000_000;
    while (running && System.nanoTime() < until) {
      try {
        Thread.sleep(Math.min(200, Math.max(1, (until - System.nanoTime()) / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Stops listening; returns once the thread ended (within about a second), or after 5 s. */
  @Override
  public void close() {
    running = false;
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
