package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.RetryPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code store} and {@code hostId} fields: what loads, what is refused and how it is named, the derived host id. */
class StoreConfigTest {
  @TempDir
  Path dir;

  private static String error(String json) {
    return assertThrows(ConfigException.class, () -> ConfigLoader.parse(json, "vigil.json", Path.of("/etc/vigil")))
        .getMessage();
  }

  @Test
  void aPostgresStoreLoads_itsPasswordFileRelativeToTheConfiguration_andNeverRead() {
    VigilConfig c = ConfigLoader.parse("{\"store\": {\"postgresql\": {\"url\": \"jdbc:postgresql://db:5432/v\","
        + " \"user\": \"vigil\", \"passwordFile\": \"pg.password\"}}, \"hostId\": \"box-1\"}", "vigil.json",
        Path.of("/etc/vigil"));
    StoreConfig.Postgres pg = (StoreConfig.Postgres) c.store();
    assertEquals(Optional.of(Path.of("/etc/vigil/pg.password")), pg.passwordFile(), "no such file: read only at an open");
    assertEquals("vigil", pg.schema());
    assertEquals(4, pg.poolSize());
    assertEquals(Optional.of("box-1"), c.hostId());
    assertEquals("PostgreSQL jdbc:postgresql://db:5432/v, schema vigil", pg.where());
    assertTrue(ConfigLoader.parse("{}", "vigil.json", null).store() instanceof StoreConfig.H2);
    assertTrue(ConfigLoader.parse("{\"store\": {}}", "vigil.json", null).store() instanceof StoreConfig.H2);
  }

  @Test
  void aBadStoreIsRefused_namingTheField() {
    assertEquals("config vigil.json: store.postgresql needs 'url' and 'user'",
        error("{\"store\": {\"postgresql\": {\"url\": \"jdbc:postgresql://db/v\"}}}"));
    assertTrue(error("{\"store\": {\"postgresql\": {\"url\": \"postgres://db/v\", \"user\": \"u\"}}}")
        .startsWith("config vigil.json: store.postgresql.url ('postgres://db/v') must start with jdbc:postgresql://"));
    String secret = error("{\"store\": {\"postgresql\": {\"url\": \"jdbc:postgresql://db/v?password=hunter2\", \"user\": \"u\"}}}");
    assertTrue(secret.contains("store.postgresql.url") && !secret.contains("hunter2"), secret);
    assertTrue(error("{\"store\": {\"postgresql\": {\"url\": \"jdbc:postgresql://db/v\", \"user\": \"u\", \"schema\": \"A-B\"}}}")
        .contains("store.postgresql.schema"));
    assertTrue(error("{\"store\": {\"postgresql\": {\"url\": \"jdbc:postgresql://db/v\", \"user\": \"u\", \"poolSize\": 0}}}")
        .contains("store.postgresql.poolSize"));
    assertTrue(error("{\"store\": {\"mysql\": {}}}").contains("unknown field 'store.mysql'"));
    assertTrue(error("{\"hostId\": \"box-1\"}").contains("hostId is for a store that several hosts share"));
    assertTrue(error("{\"store\": {\"postgresql\": {\"url\": \"jdbc:postgresql://db/v\", \"user\": \"u\"}}, \"hostId\": \"a b\"}")
        .contains("host id 'a b' must be"));
  }

  @Test
  void aPasswordFileIsReadAtTheOpen_oneLine_andNamedWhenItCannotBe() throws Exception {
    Path f = Files.writeString(dir.resolve("pw"), "p4ss\n");
    StoreConfig.Postgres pg = new StoreConfig.Postgres("jdbc:postgresql://db/v", "u", Optional.of(f), "vigil", 4);
    assertEquals("p4ss", pg.options(RetryPolicy.DEFAULT).password());
    assertTrue(!pg.options(RetryPolicy.DEFAULT).toString().contains("p4ss"), "the options never print it");
    Files.writeString(f, "two\nlines\n");
    IllegalArgumentException two = assertThrows(IllegalArgumentException.class, () -> pg.options(RetryPolicy.DEFAULT));
    assertTrue(two.getMessage().startsWith("passwordFile (" + f + ")") && !two.getMessage().contains("two"), two.getMessage());
    Files.delete(f);
    assertTrue(assertThrows(IllegalArgumentException.class, () -> pg.options(RetryPolicy.DEFAULT)).getMessage()
        .contains("there is no such file"));
  }

  @Test
  void theDerivedHostIdIsStable_differsPerHomeAndMachine_andFollowsTheHostIdRule() {
    String a = HostIds.derive("4f1c0e2a", "/home/ci/.vigil", "Build Box #1");
    assertEquals(a, HostIds.derive("4f1c0e2a", "/home/ci/.vigil", "Build Box #1"));
    assertTrue(a.matches("build-box--1-[0-9a-f]{12}"), a);
    assertNotEquals(a, HostIds.derive("4f1c0e2a", "/home/ci/.vigil-2", "Build Box #1"), "another home, another host");
    assertNotEquals(a, HostIds.derive("99999999", "/home/ci/.vigil", "Build Box #1"), "another machine, another host");
    String longName = HostIds.derive("m", "/h", "x".repeat(200));
    assertTrue(longName.length() <= dev.vigil.coordination.Owner.MAX_HOST_ID, longName);
  }
}
