package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.h2.H2Options;
import dev.vigil.supervisor.OutputBound;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.ServiceSpec;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  private static String error(String json) {
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(json, "vigil.json", null));
    assertTrue(!e.getMessage().contains("\n"), "one line: " + e.getMessage());
    return e.getMessage();
  }

  @Test
  void anEmptyObjectGivesTheDefaults() {
    VigilConfig c = ConfigLoader.parse("{}", "vigil.json", null);
    assertEquals(VigilConfig.defaults(), c);
    assertEquals(TimeoutLattice.defaults(), c.timeouts());
  }

  @Test
  void everyFieldIsRead() {
    VigilConfig c = ConfigLoader.parse("""
        {"lanes": {"default": {"concurrency": 4}, "batch": {"concurrency": 1}},
         "maxAttempts": 5, "retry": {"backoffBase": "2s", "backoffCap": "1m"}, "durability": "power",
         "workerTypes": {"mine": {"class": "com.example.Mine", "classpath": ["lib/mine.jar"]}},
         "services": [{"name": "indexer", "type": "command", "payload": {"argv": ["sleep", "1"]}}],
         "timeouts": {"quiesceHold": "45s", "heartbeat": "PT5S"}, "restartGiveUpCount": 4}
        """, "vigil.json", Path.of("/etc/vigil"));
    assertEquals(4, c.workload().concurrency(Lane.DEFAULT));
    assertEquals(1, c.workload().concurrency(new Lane("batch")));
    assertEquals(5, c.maxAttempts());
    assertEquals(2_000, c.retry().backoffBaseMs());
    assertEquals(H2Options.Durability.POWER, c.durability());
    WorkerTypeSpec mine = c.workload().workerTypes().get("mine").orElseThrow();
    assertEquals("/etc/vigil/lib/mine.jar", mine.classpath().get(0));
    assertEquals(new WorkerTypeSpec.Declared("com.example.Mine"), mine.implementation());
    assertEquals("{\"argv\":[\"sleep\",\"1\"]}", c.workload().services().get(0).spec());
    assertEquals(45_000, c.timeouts().ms(Timeout.QUIESCE_HOLD));
    assertEquals(4, c.timeouts().restartGiveUpCount());
  }

  @Test
  void aLanesOutputBoundIsRead_andABadOneIsRefusedNamingTheField() {
    VigilConfig c = ConfigLoader.parse("{\"lanes\": {\"batch\": {\"concurrency\": 1, \"maxOutput\": \"1MiB\"}}}",
        "vigil.json", null);
    assertEquals(new OutputBound(1L << 20), c.workload().output(new Lane("batch")));
    assertEquals(OutputBound.DEFAULT, c.workload().output(Lane.DEFAULT), "64 MiB unless the lane says otherwise");
    assertEquals("config vigil.json: lanes.batch.maxOutput (1KiB) must be between 64KiB and 1TiB",
        error("{\"lanes\": {\"batch\": {\"concurrency\": 1, \"maxOutput\": \"1KiB\"}}}"));
    assertEquals("config vigil.json: lanes.batch.maxOutput: bad size \"64MB\" (units are binary: KiB, MiB, GiB): "
        + "write e.g. 512KiB, 64MiB or 1GiB",
        error("{\"lanes\": {\"batch\": {\"concurrency\": 1, \"maxOutput\": \"64MB\"}}}"));
    assertTrue(error("{\"lanes\": {\"batch\": {\"concurrency\": 1, \"maxOutput\": 1048576}}}")
        .startsWith("config vigil.json: lanes.batch.maxOutput: bad size \"1048576\""), "a bare number is not a size");
  }

  @Test
  void retentionIsReadInDaysOrAsADuration_andAShortOrBadOneIsRefused() {
    assertEquals(30L * 86_400_000L, ConfigLoader.parse("{}", "vigil.json", null).retentionMs(), "30 days by default");
    assertEquals(90L * 86_400_000L, ConfigLoader.parse("{\"retention\": \"90d\"}", "vigil.json", null).retentionMs());
    assertEquals(12L * 3_600_000L, ConfigLoader.parse("{\"retention\": \"12h\"}", "vigil.json", null).retentionMs());
    assertEquals("config vigil.json: retention 'banana': not an age (like 30d, 12h or 90m)",
        error("{\"retention\": \"banana\"}"));
    assertEquals("config vigil.json: retention (600000 ms) must be at least 1h", error("{\"retention\": \"10m\"}"));
  }

  @Test
  void anUnknownFieldIsRejected_withItsJsonPath() {
    assertEquals("config vigil.json: unknown field 'lanes.default.concurency' (line 1, column 40)",
        error("{\"lanes\": {\"default\": {\"concurency\": 2}}}"));
    assertTrue(error("{\"timeouts\": {\"heartbeet\": \"5s\"}}").contains("'timeouts.heartbeet'"));
    assertTrue(error("{\"colour\": 1}").contains("unknown field 'colour'"));
    String misplaced = error("{\"heartbeat\": \"5m\"}");
    assertTrue(misplaced.startsWith("config vigil.json: unknown field 'heartbeat' (line 1, column "), misplaced);
    assertTrue(misplaced.endsWith(") (a time setting: it goes under \"timeouts\", as in {\"timeouts\": {\"heartbeat\":"
        + " \"5m\"}})"), misplaced);
    assertFalse(error("{\"colour\": 1}").contains("time setting"), "only a time setting's name gets the hint");
  }

  @Test
  void malformedJsonAndWrongTypesNameTheProblem() {
    assertTrue(error("{\"lanes\": ").startsWith("config vigil.json: malformed JSON"));
    assertTrue(error("{\"maxAttempts\": \"three\"}").contains("'maxAttempts' has the wrong type"));
    assertTrue(error("{} {}").contains("vigil.json"));
  }

  @Test
  void anInvalidTimeoutLatticeIsRejected_namingTheEdge() {
    assertEquals("config vigil.json: timeouts do not fit together: quiesceHold (1s) must be > quiesceAnswer (2s)",
        error("{\"timeouts\": {\"quiesceHold\": \"1s\"}}"));
  }

  @Test
  void badDurationsAndValuesNameTheField() {
    assertTrue(error("{\"timeouts\": {\"heartbeat\": \"5 parsecs\"}}").contains("timeouts.heartbeat"));
    assertTrue(error("{\"lanes\": {\"default\": {\"concurrency\": 0}}}").contains("lanes.default.concurrency (0)"));
    assertTrue(error("{\"lanes\": {\"Bad Lane\": {\"concurrency\": 1}}}").contains("lane 'Bad Lane'"));
    assertTrue(error("{\"durability\": \"disk\"}").contains("durability"));
    assertTrue(error("{\"services\": [{\"name\": \"x\", \"type\": \"nope\"}]}").contains("services.x.type"));
    assertTrue(error("{\"maxAttempts\": 0}").contains("maxAttempts (0)"));
  }

  @Test
  void maxStartingIsReadOrFollowsTheMachine_andZeroIsRefused() {
    assertEquals(3, ConfigLoader.parse("{\"maxStarting\": 3}", "vigil.json", null).workload().maxStarting());
    int byMachine = ConfigLoader.parse("{}", "vigil.json", null).workload().maxStarting();
    assertEquals(Math.max(4, 4 * Runtime.getRuntime().availableProcessors()), byMachine);
    assertEquals(VigilConfig.defaultMaxStarting(), VigilConfig.defaults().workload().maxStarting());
    assertEquals("config vigil.json: maxStarting (0) must be 1-10000", error("{\"maxStarting\": 0}"));
    assertTrue(error("{\"maxStarting\": \"many\"}").contains("'maxStarting' has the wrong type"));
  }

  @Test
  void aMissingFileIsNamed(@TempDir Path dir) {
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(dir.resolve("none.json")));
    assertEquals("config " + dir.resolve("none.json") + ": file not found", e.getMessage());
  }

  @Test
  void theExampleConfigurationLoads() throws Exception {
    Path example = Path.of("..", "examples", "vigil.json");
    VigilConfig c = ConfigLoader.load(example);
    assertTrue(c.workload().lanes().size() >= 1);
    assertEquals(Optional.of(example.toAbsolutePath().normalize()), c.source(), "S9: a relaunch can load it again");
  }

  // ---- regression: one rule per fact, the engine's ----

  @Test
  void aServiceNameLongerThanTheEngineAllows_isRejectedWhenTheConfigurationLoads() {
    String name = "s".repeat(40);
    String e = error("{\"services\": [{\"name\": \"" + name + "\", \"type\": \"command\"}]}");
    assertTrue(e.contains("service '" + name + "' must be 1-32"), e);
  }

  @Test
  void aLaneConcurrencyTheEngineAccepts_loads_andTheEnginesBoundIsTheOneRejected() {
    VigilConfig c = ConfigLoader.parse("{\"lanes\": {\"default\": {\"concurrency\": 5000}}}", "vigil.json", null);
    assertEquals(5000, c.workload().concurrency(Lane.DEFAULT));
    String e = error("{\"lanes\": {\"default\": {\"concurrency\": 10001}}}");
    assertTrue(e.contains("lanes.default.concurrency (10001) must be 1-10000"), e);
  }

  @Test
  void aServiceActivation_isReadFromTheConfiguration_andABadOneNamesTheField() {
    VigilConfig c = ConfigLoader.parse("{\"services\": [{\"name\": \"idx\", \"type\": \"command\", \"activation\": \"on-demand\"},"
        + " {\"name\": \"web\", \"type\": \"command\", \"activation\": \"always\"},"
        + " {\"name\": \"db\", \"type\": \"command\"}]}", "vigil.json", null);
    assertEquals(List.of(ServiceSpec.Activation.ON_DEMAND, ServiceSpec.Activation.ALWAYS, ServiceSpec.Activation.ALWAYS),
        c.workload().services().stream().map(ServiceSpec::activation).toList());
    String e = error("{\"services\": [{\"name\": \"idx\", \"type\": \"command\", \"activation\": \"sometimes\"}]}");
    assertTrue(e.contains("services[0].activation ('sometimes') must be 'always' or 'on-demand'"), e);
  }

  @Test
  void aTrailingCommaOrAnEmptyFileNamesTheLineColumnAndWhatIsWrong() {
    assertEquals("config vigil.json: malformed JSON (line 2, column 46): a comma before '}' (remove the trailing comma)",
        error("{\"lanes\": {\"default\": {\"concurrency\": 2},\n                     \"b\": {\"concurrency\": 1},}}"));
    assertEquals("config vigil.json: malformed JSON (line 1, column 20): a comma before '}' (remove the trailing comma)",
        error("{\"maxAttempts\": 3, }"));
    assertEquals("config vigil.json: the file is empty (line 1, column 1); write {} for the defaults", error(""));
    assertEquals("config vigil.json: the file is empty (line 1, column 1); write {} for the defaults", error(" \n"));
    assertEquals("config vigil.json: field 'maxAttempts' has the wrong type (line 1, column 17): it must be a whole number",
        error("{\"maxAttempts\": \"three\"}"));
    String open = error("{\"lanes\": {");
    assertTrue(open.startsWith("config vigil.json: malformed JSON (line 1"), open);
    assertTrue(!open.contains("wrong type"), open);
  }

  @Test
  void aHeartbeatAloneCarriesTheTimeoutsThatFollowFromIt() {
    VigilConfig c = ConfigLoader.parse("{\"timeouts\": {\"heartbeat\": \"5m\"}}", "vigil.json", null);
    assertEquals(300_000, c.timeouts().ms(Timeout.HEARTBEAT));
    assertEquals(1_800_000, c.timeouts().ms(Timeout.STATUS_STALE), "six heartbeats");
    VigilConfig r = ConfigLoader.parse("{\"timeouts\": {\"reconcile\": \"1m\"}}", "vigil.json", null);
    assertEquals(120_000, r.timeouts().ms(Timeout.LEASE_TTL), "two reconcile passes");
    String e = error("{\"timeouts\": {\"heartbeat\": \"5m\", \"statusStale\": \"1m\"}}");
    assertTrue(e.contains("statusStale (1m) must be = 6 × heartbeat (5m)"), "a value set is kept and checked: " + e);
  }

  @Test
  void schedulesAreRead_withTheirDefaults_andABadOneNamesItsPlaceAndWhatIsWrong() {
    VigilConfig c = ConfigLoader.parse("""
        {"lanes": {"batch": {"concurrency": 1}}, "maxAttempts": 4,
         "schedules": [{"name": "nightly", "cron": "0 3 * * *", "zone": "Europe/Berlin", "lane": "batch",
                        "payload": {"argv": ["./backup.sh"]}, "timeout": "30m", "catchUp": "all", "overlap": "queue"},
                       {"name": "tick", "cron": "*/10 * * * * ?", "payload": {"argv": ["true"]}}]}""", "vigil.json", null);
    assertEquals(2, c.schedules().size());
    dev.vigil.coordination.schedule.ScheduleSpec n = c.schedules().get(0);
    assertEquals("0 3 * * *", n.cron().text());
    assertEquals(java.time.ZoneId.of("Europe/Berlin"), n.zone());
    assertEquals("batch", n.template().lane().name());
    assertEquals(1_800_000L, n.template().spec().timeoutMs());
    assertEquals(4, n.template().maxAttempts(), "the file's maxAttempts is each task's default");
    assertEquals(dev.vigil.coordination.schedule.CatchUp.ALL, n.catchUp());
    assertEquals(dev.vigil.coordination.schedule.Overlap.QUEUE, n.overlap());
    dev.vigil.coordination.schedule.ScheduleSpec t = c.schedules().get(1);
    assertEquals("default", t.template().lane().name());
    assertEquals(java.time.ZoneId.systemDefault(), t.zone());
    assertEquals(dev.vigil.coordination.schedule.CatchUp.LATEST, t.catchUp());
    assertEquals(dev.vigil.coordination.schedule.Overlap.SKIP, t.overlap());

    String one = "{\"schedules\": [{\"name\": \"n\", \"cron\": \"%s\", \"payload\": {}%s}]}";
    assertEquals("config vigil.json: schedules[0] (n): cron '61 * * * *': Failed to parse cron expression. Value 61 not in "
        + "range [0, 59]", error(one.formatted("61 * * * *", "")));
    assertEquals("config vigil.json: schedules[0] (n): lane 'gpu' is not configured (lanes: [default])",
        error(one.formatted("0 3 * * *", ", \"lane\": \"gpu\"")));
    assertEquals("config vigil.json: schedules[0] (n): zone 'Mars/Olympus' is not a time zone (like UTC, Europe/Berlin or "
        + "+02:00)", error(one.formatted("0 3 * * *", ", \"zone\": \"Mars/Olympus\"")));
    assertEquals("config vigil.json: schedules[0] (n): catch-up 'some' is not none, latest or all",
        error(one.formatted("0 3 * * *", ", \"catchUp\": \"some\"")));
    assertEquals("config vigil.json: schedules[0] needs 'name', 'cron' and 'payload'",
        error("{\"schedules\": [{\"name\": \"n\", \"cron\": \"0 3 * * *\"}]}"));
    assertEquals("config vigil.json: schedules[1] (n): the name is used twice", error("{\"schedules\": ["
        + "{\"name\": \"n\", \"cron\": \"0 3 * * *\", \"payload\": {}},"
        + "{\"name\": \"n\", \"cron\": \"0 4 * * *\", \"payload\": {}}]}"));
  }
}
