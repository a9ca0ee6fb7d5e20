package dev.vigil.coordination.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Options are validated, never clamped, and the password shows nowhere: not in the options, not in a failure. */
class PostgresOptionsTest {
  private static final String SECRET = "s3cret-Passw0rd";

  @TempDir
  Path dir;

  @Test
  void thePasswordIsMaskedInTheOptions() {
    PostgresOptions o = PostgresOptions.of("jdbc:postgresql://db.example:5432/vigil", "vigil", SECRET);
    assertFalse(o.toString().contains(SECRET), o.toString());
    assertFalse(o.where().contains(SECRET), o.where());
    assertTrue(o.toString().contains("password=****"), o.toString());
  }

  @Test
  void aUrlThatCarriesAPasswordOrUserIsRefused_withoutEchoingIt() {
    for (String url : new String[] {"jdbc:postgresql://db/vigil?password=" + SECRET,
        "jdbc:postgresql://db/vigil?user=vigil&sslmode=require", "jdbc:postgresql://vigil:" + SECRET + "@db/vigil"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> PostgresOptions.of(url, "vigil", ""));
      assertFalse(e.getMessage().contains(SECRET), e.getMessage());
      assertTrue(e.getMessage().startsWith("url ("), e.getMessage());
    }
  }

  @Test
  void badValuesAreRefused_namingTheField() {
    PostgresOptions o = PostgresOptions.of("jdbc:postgresql://db/vigil", "vigil", "");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> o.withPoolSize(0)).getMessage().startsWith("poolSize"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> o.withSchema("Vigil; DROP")).getMessage()
        .startsWith("schema"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> o.withLockTimeout(Duration.ZERO)).getMessage()
        .startsWith("lockTimeout"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> o.withConnectTimeout(Duration.ofMillis(10)))
        .getMessage().startsWith("connectTimeout"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> PostgresOptions.of("jdbc:h2:/tmp/x", "vigil", ""))
        .getMessage().startsWith("url"));
  }

  @Test
  void thePasswordFileIsReadWithoutItsLineBreak_andAFailureNamesOnlyTheFile() throws Exception {
    Path file = dir.resolve("password");
    Files.writeString(file, SECRET + "\n");
    assertEquals(SECRET, PostgresOptions.readPasswordFile(file));
    Files.writeString(file, SECRET + "\nsecond line\n");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PostgresOptions.readPasswordFile(file));
    assertFalse(e.getMessage().contains(SECRET), e.getMessage());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> PostgresOptions.readPasswordFile(dir.resolve("none")))
        .getMessage().contains("cannot be read"));
  }

  @Test
  void aRefusedPassword_user_orDatabase_failsTheOpen_namingTheField_withoutThePassword() throws Exception {
    PostgresServer server = PostgresServer.get();
    org.junit.jupiter.api.Assumptions.assumeTrue(server.isEmbedded(), "roles are made only on the tests' own server");
    try (java.sql.Connection c = server.connect(); java.sql.Statement s = c.createStatement()) {
      s.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'vigil_pw') THEN"
          + " CREATE ROLE vigil_pw LOGIN PASSWORD '" + SECRET + "'; END IF; END $$");
      s.execute("GRANT CREATE ON DATABASE postgres TO vigil_pw");
    }
    String url = server.url();
    PostgresOptions right = PostgresOptions.of(url, "vigil_pw", SECRET).withSchema("s_pw_" + ProcessHandle.current().pid());
    PostgresCoordination.open(right).close(); // the password travels as a property, and is the right one
    server.drop(right.schema());

    PostgresRefusedException e = assertThrows(PostgresRefusedException.class,
        () -> PostgresCoordination.open(PostgresOptions.of(url, "vigil_pw", SECRET + "-wrong")));
    assertEquals("password", e.field(), e.getMessage());
    assertTrue(e.getMessage().contains("refused the password of user vigil_pw"), e.getMessage());
    for (Throwable t = e; t != null; t = t.getCause()) {
      assertFalse(String.valueOf(t.getMessage()).contains(SECRET), "the password shows in " + t);
    }
    e = assertThrows(PostgresRefusedException.class,
        () -> PostgresCoordination.open(PostgresOptions.of(url.replace("/postgres", "/no_such_db"), "postgres", "")));
    assertEquals("url", e.field(), e.getMessage());
  }

  @Test
  void anUnreachableServerFailsTheOpen_asUnavailable_withoutThePasswordInAnyMessage() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    PostgresOptions o = PostgresOptions.of("jdbc:postgresql://127.0.0.1:" + port + "/vigil", "vigil", SECRET)
        .withConnectTimeout(Duration.ofMillis(500));
    PostgresUnavailableException e = assertThrows(PostgresUnavailableException.class, () -> PostgresCoordination.open(o));
    assertEquals("the server cannot be reached", e.reason(), e.getMessage());
    assertTrue(e.getMessage().startsWith("cannot open jdbc:postgresql://127.0.0.1:" + port + "/vigil, schema vigil: "),
        e.getMessage());
    for (Throwable t = e; t != null; t = t.getCause()) {
      assertFalse(String.valueOf(t.getMessage()).contains(SECRET), "the password shows in " + t);
    }
  }
}
