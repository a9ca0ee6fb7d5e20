package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HomeTest {
  @TempDir
  Path tmp;

  @Test
  void manyStartsPreparingOneFreshHomeAtOnceAllSucceed_andTheHomeIsPrivate() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      for (int round = 0; round < 25; round++) {
        Home home = new Home(tmp.resolve("r" + round).resolve("home"));
        CyclicBarrier together = new CyclicBarrier(8);
        List<Future<?>> starts = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          starts.add(pool.submit(() -> {
            together.await();
            home.prepare();
            return null;
          }));
        }
        for (Future<?> f : starts) {
          f.get(); // throws when a start failed
        }
        for (Path d : new Path[] {home.dir(), home.runs(), home.logs()}) {
          assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(d)), d.toString());
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aHomeOpenToOthersIsRefusedNotRepaired() throws Exception {
    Path dir = tmp.resolve("open");
    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-x---")));
    ConfigException e = assertThrows(ConfigException.class, () -> new Home(dir).prepare());
    assertTrue(e.getMessage().contains("must be rwx------"), e.getMessage());
    assertEquals("rwxr-x---", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
    assertTrue(!Files.exists(dir.resolve("runs")), "nothing was created");
  }

  @Test
  void aHomeThatCannotBeCreatedSaysSoInWords() throws Exception {
    Path locked = Files.createDirectory(tmp.resolve("locked"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("r-x------")));
    org.junit.jupiter.api.Assumptions.assumeFalse(Files.isWritable(locked), "not run as a user who may write anywhere");
    Path dir = locked.resolve("home");
    ConfigException e = assertThrows(ConfigException.class, () -> new Home(dir).prepare());
    assertEquals("cannot create home " + dir + ": permission denied", e.getMessage());
    assertTrue(!Files.exists(dir), "nothing was created");
  }

  @Test
  void aHomeUnderAFileSaysSoInWords() throws Exception {
    Path file = Files.writeString(tmp.resolve("plain"), "x");
    Path dir = file.resolve("home");
    ConfigException e = assertThrows(ConfigException.class, () -> new Home(dir).prepare());
    assertEquals("cannot create home " + dir + ": " + file + " is a file, not a directory", e.getMessage());
  }
}
