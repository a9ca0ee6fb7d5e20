package dev.vigil.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.h2.CoordinationStoreException;
import dev.vigil.coordination.h2.DamagedStoreException;
import dev.vigil.coordination.h2.H2Maintenance;
import dev.vigil.coordination.h2.StoreCheck;
import dev.vigil.launcher.internal.Client;
import dev.vigil.launcher.internal.Home;
import dev.vigil.launcher.internal.StoreOps;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vigil store check|backup|restore|recover}: the store ({@code <home>/vigil.mv.db}) checked,
 * backed up, restored from a backup, or salvaged when damaged (see {@link StoreOps} for where each
 * runs and {@link H2Maintenance} for how). Exit codes: 0 done (check: healthy), 1 the store is
 * damaged or the step failed, 2 bad input or nothing to work on, 3 refused (a daemon runs, for
 * restore and recover; the file is in use by another program), 4 a daemon holds the home but does
 * not answer.
 */
@Command(name = "store", mixinStandardHelpOptions = true, subcommands = {StoreCmd.CheckCmd.class,
    StoreCmd.BackupCmd.class, StoreCmd.RestoreCmd.class, StoreCmd.RecoverCmd.class},
    description = {"Check, back up, restore or recover the store: the database in the home (vigil.mv.db) that "
        + "holds every task, run and event.", "check and backup also work while the daemon runs (it does them "
        + "itself); restore and recover need it stopped (vigil down)."},
    footer = {"", "Examples:", "  vigil store check", "  vigil store backup ~/vigil-backup.zip",
        "  vigil store restore ~/vigil-backup.zip", "  vigil store recover"})
final class StoreCmd implements Callable<Integer> {
  @CommandLine.ParentCommand
  Main root;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    throw new CommandLine.ParameterException(spec.commandLine(), "store needs a command: check, backup, restore or "
        + "recover (see vigil store --help)");
  }

  /** A store command: the home of the root command, standard output. */
  abstract static class StoreSub implements Callable<Integer> {
    @CommandLine.ParentCommand
    StoreCmd store;

    Home home() {
      return Main.home(store.root);
    }

    PrintStream out() {
      return System.out;
    }

    /** The store file, which must exist; else exit 2. */
    Path existingStore(Home h) {
      if (!Files.exists(h.databaseFile())) {
        throw new Client.Failure(2, "there is no store at " + h.databaseFile() + " (a daemon makes it when it first "
            + "starts)");
      }
      return h.databaseFile();
    }
  }

  /** A path as the user typed it, made absolute against the current directory. */
  static Path absolute(String file) {
    try {
      return Path.of(file).toAbsolutePath().normalize();
    } catch (java.nio.file.InvalidPathException e) {
      throw new IllegalArgumentException("'" + file + "' is not a file path");
    }
  }

  /** A failure of the store layer: refused (3) when another program has the file open, else failed (1). */
  static Client.Failure failure(CoordinationStoreException e) {
    if (e instanceof DamagedStoreException d) {
      return new Client.Failure(1, StoreOps.damagedLine(d));
    }
    String m = String.valueOf(e.getMessage());
    return new Client.Failure(m.contains("in use by another process") ? 3 : 1, m.contains("in use by another process")
        ? "refused: " + m : m);
  }

  private record Checked(StoreCheck check, String how) {}

  @Command(name = "check", mixinStandardHelpOptions = true, description = {"Check the store: read every row and every "
      + "index entry, then check the rules Vigil relies on (each running task has its run, the id counters are "
      + "ahead of the ids in use, nothing refers to a missing task or run). Prints what it found: exit 0 when it is "
      + "healthy, 1 when it is damaged or inconsistent, naming what.", "With the daemon running, the daemon checks "
      + "inside its own connection while work goes on; else the file is opened read-only (nothing is written to it)."},
      footer = {"", "Examples:", "  vigil store check", "  vigil store check || vigil store recover"})
  static final class CheckCmd extends StoreSub {
    @Override
    public Integer call() {
      Home h = home();
      Checked c = StoreOps.stoppedOrRunning(h, Main.waitDaemonMs(), () -> {
        Path file = existingStore(h);
        try {
          return new Checked(H2Maintenance.check(file), "checked with the daemon stopped");
        } catch (CoordinationStoreException e) {
          throw failure(e);
        }
      }, client -> {
        StoreOps.requireStoreOps(client, "check the store", "vigil store check");
        JsonNode r = client.call("store-check", Main.args());
        if (!r.path("kind").asText().equals("StoreCheck")) {
          throw new Client.Failure(Views.unavailable(r) ? Client.STORE_UNAVAILABLE : 1,
              r.path("message").asText("the daemon could not check the store"));
        }
        return new Checked(StoreOps.checkOf(r), "checked by the running daemon, pid " + client.capabilities().pid());
      });
      StoreOps.checkLines(c.check(), c.how()).forEach(out()::println);
      return c.check().healthy() ? 0 : c.check().newerSchema() ? 2 : 1;
    }
  }

  @Command(name = "backup", mixinStandardHelpOptions = true, description = {"Write a backup of the store to FILE: a "
      + "zip holding the database file, readable by this user only (0600). With the daemon running, the daemon makes "
      + "it with every change paused for the copy (about as long as reading the file once), so it holds one "
      + "consistent moment; else it copies the closed file. vigil store restore FILE puts it back.",
      "An existing FILE is not replaced unless --force is given."},
      footer = {"", "Examples:", "  vigil store backup ~/backups/vigil-$(date +%F).zip"})
  static final class BackupCmd extends StoreSub {
    @Parameters(paramLabel = "FILE", description = "where to write the backup (a new file; its directory must exist)")
    String file;

    @Option(names = "--force", description = "replace FILE if it exists")
    boolean force;

    @Override
    public Integer call() {
      Home h = home();
      Path target = absolute(file);
      StoreOps.badBackupTarget(target, force, h.databaseFile()).ifPresent(bad -> {
        throw new Client.Failure(2, bad);
      });
      String line = StoreOps.stoppedOrRunning(h, Main.waitDaemonMs(), () -> {
        Path store = existingStore(h);
        try {
          H2Maintenance.Backup b = H2Maintenance.backup(store, target, force);
          return backedUp(store, b.file(), b.bytes(), b.schemaVersion(), "the daemon is stopped");
        } catch (CoordinationStoreException e) {
          throw failure(e);
        }
      }, client -> {
        StoreOps.requireStoreOps(client, "back up the store", "vigil store backup");
        ObjectNode a = Main.args();
        a.put("file", target.toString());
        a.put("force", force);
        JsonNode r = client.call("store-backup", a);
        String kind = r.path("kind").asText();
        if (!kind.equals("BackedUp")) {
          throw new Client.Failure(kind.equals("Invalid") ? 2 : Views.unavailable(r) ? Client.STORE_UNAVAILABLE : 1,
              r.path("message").asText("the backup failed"));
        }
        return backedUp(h.databaseFile(), Path.of(r.path("file").asText()), r.path("bytes").asLong(),
            r.path("schemaVersion").asInt(), "made by the running daemon, pid " + client.capabilities().pid());
      });
      out().println(line);
      return 0;
    }

    private static String backedUp(Path store, Path to, long bytes, int schema, String how) {
      return "backed up " + store + " to " + to + " (" + bytes + " bytes, schema version " + schema + "; " + how + ")";
    }
  }

  @Command(name = "restore", mixinStandardHelpOptions = true, description = {"Put a backup in place of the store, "
      + "with the daemon stopped. The backup is unpacked and checked first: one that is damaged, or was written by "
      + "a newer Vigil, is refused (exit 2) and nothing changes. The store it replaces is kept beside it as "
      + "vigil.mv.db.before-restore-TIME (nothing is deleted).", "FILE is a zip written by vigil store backup, or a "
      + "store file kept aside by an earlier restore or recover."},
      footer = {"", "Examples:", "  vigil down && vigil store restore ~/backups/vigil-2026-12-01.zip && vigil up"})
  static final class RestoreCmd extends StoreSub {
    @Parameters(paramLabel = "FILE", description = "the backup to restore")
    String file;

    @Override
    public Integer call() {
      Home h = home();
      Path backup = absolute(file);
      if (!Files.exists(backup)) {
        throw new Client.Failure(2, backup + " does not exist (nothing was changed)");
      }
      return StoreOps.withTheDaemonStopped(h, "be restored", "vigil store restore", () -> {
        h.prepare();
        H2Maintenance.Restore r;
        try {
          r = H2Maintenance.restore(backup, h.databaseFile(), System.currentTimeMillis());
        } catch (CoordinationStoreException e) {
          throw failure(e);
        }
        if (r instanceof H2Maintenance.Restore.Refused no) {
          throw new Client.Failure(2, no.why() + " (nothing was changed)");
        } else if (r instanceof H2Maintenance.Restore.Restored done) {
          out().println("restored " + backup + " into " + done.file() + ": schema version " + done.check().schemaVersion()
              + "; " + StoreOps.holds(done.check().rows()) + "; it passes the check");
          done.keptAs().ifPresent(k -> out().println("the store it replaced is kept as " + k));
          return 0;
        } else {
          throw new AssertionError(r);
        }
      });
    }
  }

  @Command(name = "recover", mixinStandardHelpOptions = true, description = {"Salvage a damaged store, with the "
      + "daemon stopped: the database's recovery tool reads what it can, a fresh store is built from it, rows that no longer fit "
      + "together are left out or repaired (each said), and only a fresh store that passes the check takes the place "
      + "of the damaged file, which is kept beside it as vigil.mv.db.damaged-TIME. Prints what was recovered and what "
      + "was lost.", "Exit 0 when a fresh store is in place (or the store was healthy: nothing changes), 1 when "
      + "nothing could be salvaged (nothing changes: restore a backup instead)."},
      footer = {"", "Examples:", "  vigil store check || vigil store recover"})
  static final class RecoverCmd extends StoreSub {
    @Override
    public Integer call() {
      Home h = home();
      return StoreOps.withTheDaemonStopped(h, "be recovered", "vigil store recover", () -> {
        Path store = existingStore(h);
        H2Maintenance.Recovery r;
        try {
          r = H2Maintenance.recover(store, System.currentTimeMillis(), StoreOps.highestTaskWithARunDirectory(h));
        } catch (CoordinationStoreException e) {
          throw failure(e);
        }
        if (r instanceof H2Maintenance.Recovery.Healthy) {
          out().println("store " + store + " passes the check: there is nothing to recover (nothing was changed)");
          return 0;
        } else if (r instanceof H2Maintenance.Recovery.NothingSalvaged n) {
          throw new Client.Failure(1, "nothing could be salvaged from " + store + ": " + n.why() + "; it is unchanged: "
              + "put a backup in its place with vigil store restore FILE");
        } else if (r instanceof H2Maintenance.Recovery.NewerSchema n) {
          throw new Client.Failure(2, store + " was written by a newer Vigil (schema version " + n.found() + "; this one "
              + "knows up to " + n.known() + "): recover it with that one (nothing was changed)");
        } else if (r instanceof H2Maintenance.Recovery.Recovered done) {
          PrintStream o = out();
          o.println("recovered " + store + ": a fresh store holds what could be read, and it passes the check");
          o.println("the damaged file is kept as " + done.keptAs());
          o.println("recovered: " + StoreOps.counts(done.recovered()));
          done.lost().forEach(l -> o.println("lost: " + l));
          if (done.lost().isEmpty()) {
            o.println("lost: nothing that could be counted");
          }
          done.repairs().forEach(l -> o.println("repaired: " + l));
          o.println("start it again with: vigil up");
          return 0;
        } else {
          throw new AssertionError(r);
        }
      });
    }
  }
}
